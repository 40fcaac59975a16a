"""The small local language model: runtimes (transformers, llama.cpp) and the prompts it is given."""
