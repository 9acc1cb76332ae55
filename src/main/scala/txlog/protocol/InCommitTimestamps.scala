package txlog.protocol

import txlog.{Metadata, Protocol}

/** The spec's "In-Commit Timestamps": the feature, its properties and whether it is enabled (a
  * commit's timestamp is read by [[txlog.log.InCommitTimestampReader]]).
  */
private[txlog] object InCommitTimestamps {

  /** The writer feature's name, as the spec spells it. */
  val Feature = "inCommitTimestamp"
  val EnabledKey = "delta.enableInCommitTimestamps"
  val VersionKey = "delta.inCommitTimestampEnablementVersion"
  val TimestampKey = "delta.inCommitTimestampEnablementTimestamp"

  /** Whether a snapshot with this protocol and metadata has in-commit timestamps enabled. */
  def enabled(p: Protocol, m: Metadata): Boolean =
    p.hasWriterFeature(Feature) &&
      TableProperties.flag(m.configuration, EnabledKey)

  /** (version, timestamp) at which in-commit timestamps were enabled, when set. */
  def enablement(m: Metadata): Option[(Long, Long)] =
    for {
      v <- m.configuration.get(VersionKey)
      t <- m.configuration.get(TimestampKey)
    } yield (v.toLong, t.toLong)
}
