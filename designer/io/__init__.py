"""Reading and writing files: project files and one exporter per format."""
