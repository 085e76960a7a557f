"""moto's S3 server, with each object write made atomic, as it is on S3.

moto answers PutObject and CompleteMultipartUpload with If-None-Match: * by first looking
for the key and then storing the object, in two steps, while its server runs each request
in a thread of its own. Two create-only writes of one key that overlap can then both
succeed, which S3 never allows, and a test of concurrent create-only writers (idempotency
keys, version allocation) fails by chance. This launcher runs moto's own server with one
lock around every PUT and POST on a key: reads and bucket calls stay concurrent.
"""

import threading

from moto.s3.responses import S3Response
from moto.server import main

_writes = threading.Lock()
_key_response = S3Response.key_response


def _atomic_key_response(self, request, full_url, headers):
    if request.method in ("PUT", "POST"):
        with _writes:
            return _key_response(self, request, full_url, headers)
    return _key_response(self, request, full_url, headers)


S3Response.key_response = _atomic_key_response

if __name__ == "__main__":
    main()
