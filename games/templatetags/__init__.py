"""Template filters the pages share."""
