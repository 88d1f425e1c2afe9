//! Ingest: batcher, bulk driver (clients, retries, backpressure), failure file, reconciliation.
