"""What comes into a set: production failures (`evalset promote`) with personal data
redacted, and rows from other tools (`evalset import`)."""
