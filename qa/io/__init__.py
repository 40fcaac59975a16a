"""Question files in, answer lines out: reading questions, streaming them, answering batches in processes."""
