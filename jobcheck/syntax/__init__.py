"""Helpers over libcst syntax trees shared by every extractor: decoding and parsing,
fast traversal, name resolution through imports, literal evaluation and positions."""
