"""Infrastructure under every room: the database (pool, embedded Postgres), migrations, logs,
tracing and deadlines. It imports nothing of the product's packages."""
