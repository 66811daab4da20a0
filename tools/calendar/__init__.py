"""Calendar domain: time understanding, .ics in and out, conflicts and free slots."""
