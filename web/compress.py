"""gzip for the page and its static files, so a browser downloads a third of their bytes.

Only whole, successful responses of text types are compressed; the Server-Sent Events stream,
downloads (.ics, .eml) and JSON stay as they are. Compression happens once per file version
and is kept for static files (a few KiB each); the page itself is compressed each time.
"""

from __future__ import annotations

import gzip
from functools import lru_cache

from flask import Response, request

COMPRESSED_TYPES = ("text/html", "text/css", "text/javascript", "application/javascript",
                    "image/svg+xml")  # fmt: skip
MIN_BYTES = 512  # smaller bodies gain less than gzip's own header costs


@lru_cache(maxsize=32)
def _gzip(body: bytes) -> bytes:
    return gzip.compress(body, compresslevel=6, mtime=0)


def compress(response: Response) -> Response:
    """after_request: gzip the body when the browser accepts it and it is worth it."""
    if (
        response.status_code != 200
        or response.mimetype not in COMPRESSED_TYPES
        or "gzip" not in request.headers.get("Accept-Encoding", "")
        or "Content-Encoding" in response.headers
        or response.is_streamed
        and not response.direct_passthrough
    ):
        return response
    static = response.direct_passthrough  # a file: the same bytes every time, worth keeping
    response.direct_passthrough = False
    body = response.get_data()
    if len(body) < MIN_BYTES:
        return response
    response.set_data(_gzip(body) if static else gzip.compress(body, mtime=0))
    response.headers["Content-Encoding"] = "gzip"
    response.vary.add("Accept-Encoding")
    return response
