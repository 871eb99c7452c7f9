"""Hooks for the schemathesis run of .ci/run: PDF bodies are sent as raw bytes."""
import schemathesis

schemathesis.serializer.alias("application/pdf", "application/octet-stream")
