import MoltCLI
