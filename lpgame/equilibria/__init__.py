"""Solution concepts, one module each; every module builds a LinearProgram from a SequenceForm
(``double_oracle`` builds a sequence of them, for restricted games grown by best responses)."""
