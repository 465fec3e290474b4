"""Reading and writing: JSON results and strategies (Gambit and OpenSpiel adapters live here too)."""
