"""What the caller actually heard and said: committed turns and verified played prefixes."""
