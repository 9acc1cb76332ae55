package txlog.replay

import org.apache.spark.sql.{Column, DataFrame, Row}
import org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types.{LongType, StringType, StructType}

import txlog.{Metadata, Protocol}
import txlog.errors.TxlogErrors

/** A txn action: the latest version an application committed ("Transaction Identifiers"). */
private[txlog] final case class SetTransaction(
    appId: String,
    version: Long,
    lastUpdated: Option[Long]
)

/** A domainMetadata action that is in force ("Domain Metadata"). */
private[txlog] final case class DomainMetadata(domain: String, configuration: String)

/** The actions of a snapshot other than files, reconciled on the driver as the spec's "Action
  * Reconciliation" says: the latest protocol and metaData win, txns by appId, domain metadata by
  * domain (removed ones dropped). These actions are few, so they are collected.
  *
  * @param sidecars
  *   sidecar files named by a V2 checkpoint (paths relative to `_sidecars`)
  * @param inCommitTimestamp
  *   the segment version's commitInfo.inCommitTimestamp, if any
  */
private[txlog] final case class NonFileState(
    protocol: Option[Protocol],
    metadata: Option[Metadata],
    txns: Map[String, SetTransaction],
    domains: Map[String, DomainMetadata],
    sidecars: Seq[String],
    inCommitTimestamp: Option[Long]
)

private[txlog] object NonFileState {
  val empty: NonFileState = NonFileState(None, None, Map.empty, Map.empty, Seq.empty, None)

  private val nonFile = Seq("protocol", "metaData", "txn", "domainMetadata")

  /** Selects the rows to collect from checkpoint and tail actions (both as produced by
    * [[LogActions]]): non-file actions, sidecars, corrupt lines and the target's commitInfo.
    */
  def rowsToCollect(checkpoint: Option[DataFrame], tail: DataFrame, version: Long): DataFrame =
    checkpoint.fold(tailRows(tail, version))(cp =>
      checkpointRows(cp).unionByName(tailRows(tail, version))
    )

  /** [[rowsToCollect]] of a checkpoint alone. */
  def checkpointRows(cp: DataFrame): DataFrame = {
    // Required leaf fields rather than whole structs: parquet can skip row groups on them.
    val present = Seq(
      "protocol.minReaderVersion",
      "metaData.id",
      "txn.appId",
      "domainMetadata.domain",
      "sidecar.path",
      LogActions.CorruptColumn
    )
    cp.where(present.map(c => col(c).isNotNull).reduce(_ || _))
      .select(
        Seq(col("version"), col("idx"), col("file")) ++ nonFile.map(col) ++ Seq(
          col("sidecar.path").as("sidecarPath"),
          lit(null).cast("long").as("ict"),
          col(LogActions.CorruptColumn)
        ): _*
      )
  }

  private def tailRows(tail: DataFrame, version: Long): DataFrame = {
    val wanted = (nonFile :+ LogActions.CorruptColumn).map(c => col(c).isNotNull)
    tail
      .where((wanted :+ (col("version") === version && col("commitInfo").isNotNull)).reduce(_ || _))
      .select(
        Seq(col("version"), col("idx"), col("file")) ++ nonFile.map(col) ++ Seq(
          lit(null).cast("string").as("sidecarPath"),
          when(col("version") === version, col("commitInfo.inCommitTimestamp")).as("ict"),
          col(LogActions.CorruptColumn)
        ): _*
      )
  }

  /** What [[checkpointRows]] selects from one checkpoint row read on the driver (a row with
    * `protocol`, `metaData`, `txn`, `domainMetadata` and `sidecar`); None for a file action.
    */
  def checkpointRow(version: Long, file: String, r: Row): Option[Row] = {
    val actions = nonFile.map(r.getAs[Row])
    val sidecar = Option(r.getAs[Row]("sidecar")).flatMap(s => Option(s.getAs[String]("path")))
    // The leaf fields checkpointRows tests, in the same order as nonFile.
    val present = actions.zip(Seq("minReaderVersion", "id", "appId", "domain")).exists {
      case (a, leaf) => a != null && !a.isNullAt(a.fieldIndex(leaf))
    }
    if (!present && sidecar.isEmpty) None
    else {
      val values = Seq[Any](version, -1L, file) ++ actions ++ Seq(sidecar.orNull, null, null)
      Some(new GenericRowWithSchema(values.toArray, collectedSchema))
    }
  }

  private val collectedSchema: StructType = StructType(
    Tail.driverSchema.fields.filter(f => Seq("version", "idx", "file").contains(f.name)) ++
      nonFile.map(Tail.driverSchema(_))
  ).add("sidecarPath", StringType)
    .add("ict", LongType)
    .add(LogActions.CorruptColumn, StringType)

  /** What [[rowsToCollect]] selects from a tail, for one held on the driver ([[DriverTail]]). */
  def driverTailRows(rows: Seq[Row], version: Long): Seq[Row] = rows.flatMap { r =>
    val actions = nonFile.map(r.getAs[Row])
    val commitInfo = if (r.getLong(0) == version) Option(r.getAs[Row]("commitInfo")) else None
    if (actions.forall(_ == null) && commitInfo.isEmpty) None
    else {
      val ict = commitInfo.flatMap(c => Option(c.getAs[Any]("inCommitTimestamp"))).orNull
      val values = Seq[Any](r.get(0), r.get(1), r.get(2)) ++ actions ++ Seq(null, ict, null)
      Some(new GenericRowWithSchema(values.toArray, collectedSchema): Row)
    }
  }

  /** Raises MALFORMED_LOG_FILE (naming file, version and line) for the first row whose
    * `_corrupt_record` is set; rows need `file`, `version` and `idx`.
    */
  def failOnCorrupt(rows: Seq[Row]): Unit =
    rows.find(r => !r.isNullAt(r.fieldIndex(LogActions.CorruptColumn))).foreach { r =>
      throw TxlogErrors.malformedLogFile(
        r.getAs[String]("file"),
        r.getAs[Long]("version"),
        invalidLine(r.getAs[Long]("idx"), r.getAs[String](LogActions.CorruptColumn))
      )
    }

  /** The detail of MALFORMED_LOG_FILE for the line at `idx` (from 0) with `text`. */
  def invalidLine(idx: Long, text: String): String =
    s"Line ${idx + 1} is not a valid action: " + text.take(200)

  /** Reconciles collected rows (see [[rowsToCollect]]); corrupt lines are errors. */
  def reconcile(rows: Seq[Row], initial: NonFileState): NonFileState = {
    failOnCorrupt(rows)
    val ordered = rows.sortBy(r => (r.getAs[Long]("version"), r.getAs[Long]("idx")))
    ordered.foldLeft(initial) { (s, r) =>
      def struct(name: String): Option[Row] = Option(r.getAs[Row](name))
      s.copy(
        protocol = struct("protocol").map(toProtocol).orElse(s.protocol),
        metadata = struct("metaData").map(toMetadata).orElse(s.metadata),
        txns = struct("txn")
          .map { t =>
            val txn = SetTransaction(
              t.getAs[String]("appId"),
              t.getAs[Long]("version"),
              Option(t.getAs[Any]("lastUpdated")).map(_.asInstanceOf[Long])
            )
            s.txns.updated(txn.appId, txn)
          }
          .getOrElse(s.txns),
        domains = struct("domainMetadata")
          .map { d =>
            val domain = d.getAs[String]("domain")
            if (Option(d.getAs[Any]("removed")).contains(true)) s.domains - domain
            else s.domains.updated(domain, DomainMetadata(domain, d.getAs[String]("configuration")))
          }
          .getOrElse(s.domains),
        sidecars = Option(r.getAs[String]("sidecarPath")).fold(s.sidecars)(s.sidecars :+ _),
        inCommitTimestamp = Option(r.getAs[Any]("ict"))
          .map(_.asInstanceOf[Long])
          .orElse(s.inCommitTimestamp)
      )
    }
  }

  private def strings(r: Row, field: String): Option[Seq[String]] =
    Option(r.getAs[scala.collection.Seq[String]](field)).map(_.toSeq)

  private def stringMap(r: Row, field: String): Map[String, String] =
    Option(r.getAs[scala.collection.Map[String, String]](field))
      .map(_.toMap)
      .getOrElse(Map.empty)

  private[txlog] def toProtocol(r: Row): Protocol = {
    def int(f: String) = if (r.isNullAt(r.fieldIndex(f))) 0 else r.getAs[Int](f)
    Protocol(
      int("minReaderVersion"),
      int("minWriterVersion"),
      strings(r, "readerFeatures").map(_.toSet),
      strings(r, "writerFeatures").map(_.toSet)
    )
  }

  private[txlog] def toMetadata(r: Row): Metadata = {
    val format = Option(r.getAs[Row]("format"))
    Metadata(
      id = r.getAs[String]("id"),
      name = Option(r.getAs[String]("name")),
      description = Option(r.getAs[String]("description")),
      formatProvider = format
        .flatMap(f => Option(f.getAs[String]("provider")))
        .getOrElse("parquet"),
      formatOptions = format.map(stringMap(_, "options")).getOrElse(Map.empty),
      schemaString = r.getAs[String]("schemaString"),
      partitionColumns = strings(r, "partitionColumns").getOrElse(Seq.empty),
      configuration = stringMap(r, "configuration"),
      createdTime = Option(r.getAs[Any]("createdTime")).map(_.asInstanceOf[Long])
    )
  }
}
