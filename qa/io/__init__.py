"""Question files in, answer lines out: reading questions, streaming them, answering batches in processes,
writing the answer file (resumed or overwritten, locked while written)."""
