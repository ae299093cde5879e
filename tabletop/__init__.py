"""The composition root: builds real or simulated adapters from a table config
and hands them to the referee's runtime. The only package that imports both
`referee` and `hardware`."""
