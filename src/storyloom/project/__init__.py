"""The domain: collections, documents, settings, editing, project manager."""
