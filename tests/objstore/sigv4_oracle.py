"""botocore's S3 SigV4 signer as an independent oracle for hudi-c's.

Reads JSON lines {"method", "url", "headers": [[name, value], ...],
"body_hex", "date", "key", "secret", "region"} from stdin and prints, per
line, {"authorization", "creq"} as botocore computes them for that request
at that timestamp. Used by tests/unit/io/test_sigv4.c; runs in the venv
dev/setup-objstore.sh creates. No network."""
import json
import sys

from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

for line in sys.stdin:
    r = json.loads(line)
    req = AWSRequest(method=r["method"], url=r["url"], data=bytes.fromhex(r["body_hex"]))
    for name, value in r["headers"]:
        req.headers[name] = value
    req.context["timestamp"] = r["date"]
    auth = S3SigV4Auth(Credentials(r["key"], r["secret"]), "s3", r["region"])
    auth._modify_request_before_signing(req)
    creq = auth.canonical_request(req)
    sts = auth.string_to_sign(req, creq)
    auth._inject_signature_to_request(req, auth.signature(sts, req))
    print(json.dumps({"authorization": req.headers["Authorization"], "creq": creq}), flush=True)
