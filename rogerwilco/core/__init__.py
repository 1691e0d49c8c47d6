"""The core: grammar, slot types, vocabulary, messages, the never-guess pass, the codec, the Lark wrapper.

See docs/architecture.md for the layers and what each may import."""
