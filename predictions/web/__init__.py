"""The predictions pages: views, forms, uploads and the prompt browser."""
