package txlog.protocol

/** The spec's "In-Commit Timestamps": the feature and its properties (whether it is enabled:
  * [[TableConfiguration.inCommitTimestamps]]; a commit's timestamp is read by
  * [[txlog.log.InCommitTimestampReader]]).
  */
private[txlog] object InCommitTimestamps {

  /** The writer feature's name, as the spec spells it. */
  val Feature = "inCommitTimestamp"
  val EnabledKey = "delta.enableInCommitTimestamps"
  val VersionKey = "delta.inCommitTimestampEnablementVersion"
  val TimestampKey = "delta.inCommitTimestampEnablementTimestamp"

}
