"""Solution concepts, one module each; every module builds a LinearProgram from a SequenceForm."""
