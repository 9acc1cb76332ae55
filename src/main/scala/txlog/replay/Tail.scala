package txlog.replay

import org.apache.spark.broadcast.Broadcast
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema
import org.apache.spark.sql.types.{LongType, StringType, StructType}

import txlog.errors.TxlogErrors
import txlog.protocol.ActionSchemas
import txlog.log.{LogSegment, TablePath}
import txlog.protocol.LogFile

/** The actions of the commits (and log compactions) after a checkpoint. A tail small enough to read
  * on the driver (see [[LogLineReader]]) is read and parsed there, without a Spark job, and kept as
  * rows, so that it is reconciled without a shuffle; a larger one stays a distributed DataFrame,
  * reconciled by a window function.
  */
private[txlog] sealed trait Tail {
  def deltas: Seq[LogFile]
}

/** A small tail, parsed on the driver against [[ActionSchemas.driverLine]] (non-file actions, and
  * file actions with only what reconciling and counting need); a malformed line has already failed
  * the read. Each row keeps its line (`text`), so that the winning file actions are parsed in full
  * only if the full file list is asked for.
  */
private[txlog] final class DriverTail(val rows: IndexedSeq[Row], val deltas: Seq[LogFile])
    extends Tail

/** A large tail, read and parsed by tasks: `lines` are the files' lines ([[LogLineReader.read]]),
  * which the non-file state ([[df]]) and the file state's jobs each parse against their own schema.
  */
private[txlog] final case class DistributedTail(deltas: Seq[LogFile], lines: DataFrame)
    extends Tail {

  /** (version, idx, file, one column per action, `_corrupt_record`): only what non-file state needs
    * ([[ActionSchemas.stateLine]]); file actions are parsed (and checked) by the file state's own
    * job. A line that is not valid JSON, or a non-file action with fields of the wrong types, is
    * corrupt.
    */
  lazy val df: DataFrame = LogActions.parseLines(lines, ActionSchemas.stateLine)
}

/** The file actions of a tail: reconciled on the driver, or left to tasks. */
private[txlog] sealed trait TailFiles
private[txlog] final case class DriverTailFiles(files: FileOverlay) extends TailFiles

/** A tail reconciled on the driver too large to plan as rows (see
  * `LogLineReader.maxPlannedTailBytes`): `files` decides which actions win, and `lines` are only
  * the winners' lines, read again by tasks ([[LineSet]]): the full file list is parsed there,
  * without a window or a shuffle.
  */
private[txlog] final case class ListedTailFiles(files: FileOverlay, lines: DataFrame)
    extends TailFiles

/** Lines of log files by (version, line index), as a set tasks can test: the winning actions of a
  * [[FileOverlay]]. Indexes per version are sorted.
  */
private[txlog] final class LineSet(byVersion: Map[Long, Array[Long]]) extends Serializable {
  def contains(version: Long, idx: Long): Boolean =
    byVersion.get(version).exists(a => java.util.Arrays.binarySearch(a, idx) >= 0)
}
private[txlog] final case class DistributedTailFiles(deltas: Seq[LogFile], lines: DataFrame)
    extends TailFiles {
  private var hashes: Option[Option[Broadcast[Array[Long]]]] = None

  /** The [[TouchedKeyHashes]] of these files, computed once (by `compute`) for both shapes of a
    * snapshot's file state.
    */
  def touchedHashes(
      compute: => Option[Broadcast[Array[Long]]]
  ): Option[Broadcast[Array[Long]]] = synchronized {
    if (hashes.isEmpty) hashes = Some(compute)
    hashes.get
  }
}

private[txlog] object Tail {

  /** The rows of a [[DriverTail]]. */
  val driverSchema: StructType = StructType(
    new StructType()
      .add("version", LongType, nullable = false)
      .add("idx", LongType, nullable = false)
      .add("file", StringType, nullable = false)
      .fields ++ ActionSchemas.driverLine.fields
  ).add("text", StringType)

  /** The tail of `deltas`: on the driver only up to [[LogLineReader.LocalReadMaxBytesConf]] bytes
    * of JSON (32 MiB by default), else distributed. A distributed tail's lines are read once and
    * kept by the executors on a store that is not a local disk ([[LogLineReader.read]]'s `keep`):
    * the non-file state, the counts and the file list each parse them, and reading the files again
    * would send every request again.
    */
  def read(spark: SparkSession, table: TablePath, deltas: Seq[LogFile]): Tail = {
    val files = deltas.map(d => d.version -> d.file)
    if (!LogLineReader.readsOnDriver(spark, files.map(_._2.size).sum)) {
      DistributedTail(deltas, LogLineReader.read(spark, table, files, keep = true))
    } else {
      val zone = timeZone(spark)
      val threads = LogLineReader.readThreads(spark, table.fs)
      val lines = LogLineReader.readOnDriver(table, files, threads).toIndexedSeq
      val newParser = () => new LineParser(ActionSchemas.driverLine, zone)
      val rows = DriverParse.inRanges(lines.size, newParser) { (parser, i) =>
        val line = lines(i)
        val (version, idx, file) = (line.getLong(0), line.getLong(1), line.getString(2))
        val text = line.getString(3)
        val action = parser.parse(text).getOrElse {
          throw TxlogErrors.malformedLogFile(file, version, NonFileState.invalidLine(idx, text))
        }
        new GenericRowWithSchema(
          (Seq[Any](version, idx, file) ++ action.toSeq :+ text).toArray,
          driverSchema
        ): Row
      }
      new DriverTail(rows, deltas)
    }
  }

  /** The tail of `segment` and its file actions. With `carried`, the count of its first commits and
    * their overlay (an earlier snapshot's, reconciled on the driver), only the commits after them
    * are read and their actions laid over that overlay: the same overlay object when they hold no
    * file action, so that a checkpoint's tally against it still counts. The tail then holds those
    * later commits' rows only, which is what an update reconciles onto the earlier snapshot's
    * non-file state. The caller checks that all of `segment.deltas` are within the driver's budget.
    *
    * {{{
    * val (tail, files) = Tail.readOnto(spark, segment, Some(previousDeltas -> previousOverlay))
    * }}}
    */
  def readOnto(
      spark: SparkSession,
      segment: LogSegment,
      carried: Option[(Int, FileOverlay)]
  ): (Tail, TailFiles) = {
    val (table, root) = (segment.table, segment.table.root)
    def whole = {
      val t = read(spark, table, segment.deltas)
      (t, FileState.tailFiles(t, root))
    }
    carried.fold(whole) { case (known, overlay) =>
      read(spark, table, segment.deltas.drop(known)) match {
        case t: DriverTail =>
          val added = FileOverlay.of(t.rows, root)
          (t, DriverTailFiles(if (added.size == 0) overlay else overlay ++ added))
        case _ => whole // past the budget after all: the earlier commits are read too
      }
    }
  }

  def timeZone(spark: SparkSession): String = spark.conf.get("spark.sql.session.timeZone")
}
