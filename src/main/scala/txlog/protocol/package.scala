package txlog

/** The protocol's own concepts, one home each, as the spec ("Delta Transaction Log Protocol") names
  * them; the rest of txlog reads, replays and writes the log in their terms.
  *
  *   - '''actions''' ([[ActionSchemas]]): the Spark schemas of every action ("Actions", "Checkpoint
  *     Schema"); domain metadata a transaction stages ([[DomainAction]]). The public
  *     `txlog.Protocol` and `txlog.Metadata` are the two actions users hold.
  *   - '''log files''' ([[FileNames]], [[LogFile]]): the names and kinds of commits, checkpoints of
  *     every kind, log compactions, version checksums, `_last_checkpoint` and sidecars ("Delta Log
  *     Entries").
  *   - '''table features''' ([[TableFeatures]]): which features a commit may use, which readers
  *     must know, the legacy versions implying them, the properties and column types that call for
  *     them; the two gates: [[ReaderGate]] ("Requirements for Readers") and [[WriterGate]]
  *     ("Requirements for Writers", for maintenance).
  *   - '''table configuration''' ([[TableConfiguration]]): a table's protocol, metadata and typed
  *     `delta.*` properties, the one place a rule asks whether a feature is supported or enabled
  *     and what a setting is; [[TableProperties]] holds the keys' defaults.
  *   - '''deletion vectors''' ([[DvPaths]]): where a descriptor's file is ("Deletion Vector
  *     Descriptor Schema").
  *   - '''in-commit timestamps''' ([[InCommitTimestamps]]): the feature and its keys.
  *   - '''column mapping''' ([[ColumnMapping]]): its property and field metadata keys.
  *   - '''file columns''' ([[FileColumns]]): partition values and statistics as typed columns
  *     ("Partition Value Serialization", "Per-file Statistics"), physical names under column
  *     mapping.
  */
package object protocol
