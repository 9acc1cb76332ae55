package txlog

/** Transactions: committing to the log with optimistic concurrency ("Delta Transaction Log
  * Protocol", serializable writes through put-if-absent of `_delta_log/<version>.json`).
  *
  * Glossary; names in this package follow it.
  *
  *   - '''read version''': the snapshot version a transaction started on (-1 when it creates the
  *     table).
  *   - '''read set''' ([[ReadSet]]): what the transaction read, for conflict detection: files by
  *     predicate, the whole table, `txn` app ids, domains.
  *   - '''staged actions''': what it will commit: file actions as DataFrames (adds, removes, cdc),
  *     the rest (protocol, metadata, txn, domain metadata) on the driver.
  *   - '''writer rules''' ([[WriterRules]]): the spec's rules for writers applied to the staged
  *     non-file actions before anything is written (features, protocol choice, column mapping).
  *   - '''winning commit''': a commit another writer published between the read version and this
  *     transaction's attempt; checked for conflicts, then rebased over.
  *   - '''post-commit''' ([[PostCommit]]): work after a commit landed (version checksum,
  *     checkpoint, expired log cleanup); its failures never undo the commit.
  */
package object txn
