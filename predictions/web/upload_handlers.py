"""Stop receiving an uploaded file once it passes ``UPLOAD_MAX_BYTES``.

Django spools uploads to a temporary file, so an over-large body costs disk and time but
not memory; a body sent without a Content-Length (chunked) cannot be refused up front. This
handler, first in ``FILE_UPLOAD_HANDLERS``, stops the multipart parser at the cap and marks
the request, and the upload views answer 413 (``predictions.io.importers.upload_refused``).
"""

from __future__ import annotations

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler, StopUpload


class UploadCapHandler(FileUploadHandler):
    def receive_data_chunk(self, raw_data, start):
        if start + len(raw_data) > settings.UPLOAD_MAX_BYTES:
            self.request.upload_too_large = True  # type: ignore[union-attr]  # read by the view
            raise StopUpload(connection_reset=True)
        return raw_data  # the next handler (memory or temporary file) stores it

    def file_complete(self, file_size):
        return None
