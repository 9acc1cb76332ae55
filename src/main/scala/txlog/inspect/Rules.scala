package txlog.inspect

/** The rule names validate reports (stable: scripts match on them). */
private[txlog] object Rules {
  val VersionContiguity = "version-contiguity"
  val SnapshotUnreadable = "snapshot-unreadable"
  val MalformedCommit = "malformed-commit"
  val MultipleMetadata = "multiple-metadata"
  val MultipleProtocol = "multiple-protocol"
  val DuplicateFileAction = "duplicate-file-action"
  val MissingNumRecords = "missing-num-records"
  val IctMissing = "ict-missing"
  val IctNotMonotonic = "ict-not-monotonic"
  val ChecksumMismatch = "checksum-mismatch"
  val ChecksumUnreadable = "checksum-unreadable"
  val LastCheckpointMalformed = "last-checkpoint-malformed"
  val LastCheckpointChecksum = "last-checkpoint-checksum"
  val LastCheckpointPointer = "last-checkpoint-pointer"
  val LastCheckpointStale = "last-checkpoint-stale"
  val CheckpointUnreadable = "checkpoint-unreadable"
  val CheckpointMismatch = "checkpoint-mismatch"
  val CompactionMismatch = "compaction-mismatch"
  val CompactionUnverifiable = "compaction-unverifiable"
  val MissingDataFile = "missing-data-file"
  val DataFileSizeMismatch = "data-file-size-mismatch"
  val MissingDvFile = "missing-dv-file"
  val DvFileTooShort = "dv-file-too-short"

  /** Every rule, for documentation and `--help`. */
  val All: Seq[String] = Seq(
    VersionContiguity,
    SnapshotUnreadable,
    MalformedCommit,
    MultipleMetadata,
    MultipleProtocol,
    DuplicateFileAction,
    MissingNumRecords,
    IctMissing,
    IctNotMonotonic,
    ChecksumMismatch,
    ChecksumUnreadable,
    LastCheckpointMalformed,
    LastCheckpointChecksum,
    LastCheckpointPointer,
    LastCheckpointStale,
    CheckpointUnreadable,
    CheckpointMismatch,
    CompactionMismatch,
    CompactionUnverifiable,
    MissingDataFile,
    DataFileSizeMismatch,
    MissingDvFile,
    DvFileTooShort
  )
}
