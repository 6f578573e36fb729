"""azure-storage-blob's SharedKey signer as an independent oracle for
hudi-c's (src/io/sharedkey.c).

Reads JSON lines {"method", "url", "headers": [[name, value], ...],
"account", "key"} from stdin and prints, per line, {"authorization",
"sts"}: the Authorization header SharedKeyCredentialPolicy (the policy the
SDK puts in every pipeline that has an account key) sets on that request,
and the string it signed. Used by tests/unit/io/test_sharedkey.c; runs in
the venv dev/setup-objstore.sh creates. No network."""
import json
import sys

from azure.core.pipeline import PipelineContext, PipelineRequest
from azure.core.pipeline.transport import HttpRequest
from azure.storage.blob._shared.authentication import SharedKeyCredentialPolicy


class Capturing(SharedKeyCredentialPolicy):
    def _add_authorization_header(self, request, string_to_sign):
        self.sts = string_to_sign
        super()._add_authorization_header(request, string_to_sign)


for line in sys.stdin:
    r = json.loads(line)
    req = HttpRequest(r["method"], r["url"])
    for name, value in r["headers"]:
        req.headers[name] = value
    policy = Capturing(r["account"], r["key"])
    policy.on_request(PipelineRequest(req, PipelineContext(None)))
    print(json.dumps({"authorization": req.headers["Authorization"], "sts": policy.sts}), flush=True)
