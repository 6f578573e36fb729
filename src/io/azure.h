/* The Azure Blob Storage backend: az://container/prefix,
 * abfs[s]://container/prefix and
 * abfs[s]://container@account.dfs.core.windows.net/prefix (the account is
 * taken from the host; requests go to the Blob endpoint,
 * https://account.blob.core.windows.net, since this backend speaks the Blob
 * REST API, not ADLS Gen2's DFS API).
 *
 * Settings (storage options first, then environment variables, then a
 * connection string; option names are object_store's / delta-rs's):
 *   azure_storage_account_name (account_name)    AZURE_STORAGE_ACCOUNT_NAME
 *   azure_storage_account_key (azure_storage_access_key, account_key,
 *                              access_key)       AZURE_STORAGE_ACCOUNT_KEY
 *   azure_storage_connection_string (connection_string)
 *                                  AZURE_STORAGE_CONNECTION_STRING
 *       "AccountName=..;AccountKey=..;BlobEndpoint=..;EndpointSuffix=..;
 *        DefaultEndpointsProtocol=..", or "UseDevelopmentStorage=true"
 *   azure_storage_endpoint (azure_endpoint, endpoint)
 *                                  AZURE_STORAGE_ENDPOINT: the blob service
 *       URL; requests go to <endpoint>/<container>/<blob>
 *   azure_storage_use_emulator (use_emulator)    AZURE_STORAGE_USE_EMULATOR:
 *       azurite's well-known account devstoreaccount1 (unless an account is
 *       set) at <endpoint or AZURITE_BLOB_STORAGE_URL or
 *       http://127.0.0.1:10000>/devstoreaccount1, path-style
 *   azure_allow_http (allow_http)                AZURE_ALLOW_HTTP: an
 *       http:// endpoint is refused without it (the emulator and an
 *       explicit connection string BlobEndpoint allow it)
 *   azure_skip_signature: unsigned requests (public containers)
 * and hudi's own: multipart_threshold (bytes; larger writes stage blocks,
 * Put Block + Put Block List; default 64 MiB), multipart_part_size (block
 * size, default 16 MiB), list_max_keys (results per List Blobs page,
 * default 5000), max_retries, retry_timeout_ms, timeout_ms,
 * connect_timeout_ms, retry_base_ms (see objstore.h), read_ahead_bytes
 * (sequential read window, default 8 MiB, 0 = off; readahead.h). Requests are signed
 * with SharedKey (sharedkey.h); SAS tokens and Entra ID are not supported.
 *
 * Create-only writes send If-None-Match: * (Put Blob, or Put Block List);
 * the service's 409 BlobAlreadyExists or 412 is HUDI_ERR_EXISTS. Staged
 * block ids are unique per write, so racing create-only writers never
 * commit each other's blocks.
 *
 * rename is Copy Blob (waiting for a pending copy to finish) followed by
 * Delete Blob: NOT atomic (a reader can see both blobs, a crash can leave
 * both). HUDI_RENAME_NO_REPLACE makes the copy conditional on the
 * destination being absent (If-None-Match: *), which is atomic. Recursive
 * delete lists the prefix and deletes blob by blob (no Blob Batch). */
#ifndef HUDI_IO_AZURE_H
#define HUDI_IO_AZURE_H

#include "io/backend.h"

HUDI_NODISCARD hudi_status hudi_azure_storage_open(hudi_storage **out, const char *uri,
                                                   const hudi_storage_option *options,
                                                   size_t n_options, hudi_error *err);

/* Azurite's published development account. */
#define HUDI_AZURITE_ACCOUNT "devstoreaccount1"
#define HUDI_AZURITE_KEY \
  "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

#endif
