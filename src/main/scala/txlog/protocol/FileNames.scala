package txlog.protocol

/** Parses and builds the file names of `_delta_log` ("Delta Log Entries", "Checkpoints"). */
private[txlog] object FileNames {
  private val Commit = """^(\d{20})\.json$""".r
  private val Classic = """^(\d{20})\.checkpoint\.parquet$""".r
  private val MultiPart = """^(\d{20})\.checkpoint\.(\d{10})\.(\d{10})\.parquet$""".r
  private val UuidText =
    "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
  private val Uuid = ("""^(\d{20})\.checkpoint\.(""" + UuidText + """)\.(json|parquet)$""").r
  private val Compaction = """^(\d{20})\.(\d{20})\.compacted\.json$""".r
  private val Checksum = """^(\d{20})\.crc$""".r

  val LastCheckpoint = "_last_checkpoint"
  val SidecarDir = "_sidecars"

  /** The spec's file kind of a `_delta_log` entry, or None for a file the spec does not name. */
  def parse(file: FileInfo): Option[LogFile] = name(file.path) match {
    case Commit(v)  => Some(CommitFile(v.toLong, file))
    case Classic(v) => Some(CheckpointFile(v.toLong, CheckpointNaming.Classic, file))
    case MultiPart(v, o, p) if p.toInt > 1 && o.toInt >= 1 && o.toInt <= p.toInt =>
      Some(CheckpointFile(v.toLong, CheckpointNaming.MultiPart(o.toInt, p.toInt), file))
    case Uuid(v, u, fmt) => Some(CheckpointFile(v.toLong, CheckpointNaming.Uuid(u, fmt), file))
    case Compaction(x, y) if x.toLong <= y.toLong =>
      Some(CompactionFile(x.toLong, y.toLong, file))
    case Checksum(v) => Some(VersionChecksumFile(v.toLong, file))
    case _           => None
  }

  def name(path: String): String = path.substring(path.lastIndexOf('/') + 1)

  private val Zeros = "0" * 20

  /** `version` as the log names it, 20 digits with leading zeros (what `%020d` gives, without
    * `String.format`, which was about 1% of a small table's load).
    */
  def padded(version: Long): String =
    if (version < 0) f"$version%020d"
    else {
      val digits = java.lang.Long.toString(version)
      Zeros.substring(digits.length) + digits
    }
  def commitName(version: Long): String = s"${padded(version)}.json"
  def classicCheckpointName(version: Long): String = s"${padded(version)}.checkpoint.parquet"
  def checksumName(version: Long): String = s"${padded(version)}.crc"
  def multiPartCheckpointName(version: Long, part: Int, parts: Int): String =
    f"${padded(version)}.checkpoint.$part%010d.$parts%010d.parquet"
  def uuidCheckpointName(version: Long, uuid: String, format: String): String =
    s"${padded(version)}.checkpoint.$uuid.$format"
  def compactionName(start: Long, end: Long): String =
    s"${padded(start)}.${padded(end)}.compacted.json"
}
