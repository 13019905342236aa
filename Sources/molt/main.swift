import MoltCLI

MoltCommand.main()
