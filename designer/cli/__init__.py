"""The `fabric-designer` command: the same model as the window, for scripts and CI."""
