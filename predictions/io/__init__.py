"""Predictions in and out of files: the JSONL import and export, Codabench archives, and
predicting the samples of a file."""
