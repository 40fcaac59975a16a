"""The ingestion pipeline, above parser and search: find documents, parse them in a pool, write the stores."""
