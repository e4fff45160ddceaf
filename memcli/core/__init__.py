"""The pure core: no file I/O, no clock reads, no typer or rich."""
