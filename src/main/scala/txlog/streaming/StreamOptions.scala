package txlog.streaming

import java.util.Locale

import org.apache.spark.network.util.JavaUtils

import txlog.errors.TxlogErrors
import txlog.util.OptionValues

/** The options of a stream of a table (`spark.readStream.format("txlog")`), with delta-spark's
  * names and meanings:
  *   - where it starts: `startingVersion` (a version, or `latest`: only commits after the query
  *     starts) or `startingTimestamp` (the first commit at or after it); neither: the table's rows
  *     at the latest version first (the initial snapshot), then each commit after it;
  *   - how much a micro-batch reads: `maxFilesPerTrigger` (1000 when neither limit is given) and
  *     `maxBytesPerTrigger` (a soft limit: the file crossing it is read too);
  *   - commits that remove rows: `ignoreDeletes` (commits removing whole files and adding none are
  *     passed over), `ignoreChanges` (the files such commits add are read again, rows already read
  *     included), `skipChangeCommits` (such commits are passed over whole). Without them such a
  *     commit fails the stream;
  *   - `readChangeFeed`: the change data feed instead of the rows ([[ChangeStreamSource]]).
  *
  * Any other option is INVALID_ARGUMENT when the query starts.
  *
  * {{{
  * StreamOptions(Map("path" -> "/data/events", "maxFilesPerTrigger" -> "10"))
  * }}}
  */
private[txlog] final case class StreamOptions(
    path: String,
    startingVersion: Option[StreamOptions.Start],
    maxFiles: Option[Int],
    maxBytes: Option[Long],
    ignoreDeletes: Boolean,
    ignoreChanges: Boolean,
    skipChangeCommits: Boolean,
    readChangeFeed: Boolean = false
) {

  /** The file limit of a micro-batch: the option, or 1000 when no limit is given. */
  def filesPerBatch: Option[Int] =
    maxFiles.orElse(if (maxBytes.isEmpty) Some(StreamOptions.DefaultMaxFiles) else None)

  /** Whether the query names where it starts (no initial snapshot). */
  def starts: Boolean = startingVersion.isDefined
}

private[txlog] object StreamOptions {

  val DefaultMaxFiles = 1000

  /** Where a stream starts: a version, the commits after the latest, or a timestamp. */
  sealed trait Start
  final case class AtVersion(version: Long) extends Start
  case object Latest extends Start
  final case class AtTimestamp(text: String) extends Start

  val Known: Seq[String] = Seq(
    "path",
    "startingVersion",
    "startingTimestamp",
    "maxFilesPerTrigger",
    "maxBytesPerTrigger",
    "ignoreDeletes",
    "ignoreChanges",
    "skipChangeCommits",
    "readChangeFeed"
  )

  def apply(parameters: Map[String, String]): StreamOptions = {
    val byName = parameters.map { case (k, v) => k.toLowerCase(Locale.ROOT) -> v }
    val known = Known.map(_.toLowerCase(Locale.ROOT)).toSet
    parameters.keys.toSeq.sorted.find(k => !known(k.toLowerCase(Locale.ROOT))).foreach { k =>
      throw TxlogErrors.invalidArgument(
        k,
        s"a stream of a txlog table takes ${Known.tail.mkString(", ")}."
      )
    }
    def get(name: String) = byName.get(name.toLowerCase(Locale.ROOT))
    val path =
      get("path").getOrElse(throw TxlogErrors.invalidArgument("path", "give the table's path."))
    val version = get("startingVersion").map(_.trim).map {
      case "latest" => Latest
      case v        => AtVersion(OptionValues.wholeNumber("startingVersion", v))
    }
    val timestamp = get("startingTimestamp").map(AtTimestamp(_))
    if (version.isDefined && timestamp.isDefined) {
      throw TxlogErrors.invalidArgument(
        "startingVersion, startingTimestamp",
        "give one of them: a stream starts at a version or at a time."
      )
    }
    val maxFiles = get("maxFilesPerTrigger").map { v =>
      scala.util
        .Try(v.trim.toInt)
        .toOption
        .filter(_ > 0)
        .getOrElse(
          throw TxlogErrors
            .invalidArgument("maxFilesPerTrigger", s"'$v' is not a positive integer.")
        )
    }
    val maxBytes = get("maxBytesPerTrigger").map { v =>
      scala.util
        .Try(JavaUtils.byteStringAsBytes(v.trim))
        .toOption
        .filter(_ > 0)
        .getOrElse(
          throw TxlogErrors.invalidArgument(
            "maxBytesPerTrigger",
            s"'$v' is not a positive size (such as 10g or 512m)."
          )
        )
    }
    def flag(name: String) =
      OptionValues.flag(get(name).map(name -> _).toMap, name, default = false)
    StreamOptions(
      path,
      version.orElse(timestamp),
      maxFiles,
      maxBytes,
      flag("ignoreDeletes"),
      flag("ignoreChanges"),
      flag("skipChangeCommits"),
      flag("readChangeFeed")
    )
  }
}
