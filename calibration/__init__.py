"""`referee calibrate`: fitting the referee to one real table (camera region and latency, the players'
deck, pad offsets and tie margins, the voice), saved as the table's profile."""
