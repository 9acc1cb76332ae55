package txlog.txn

import org.apache.spark.sql.{Column, DataFrame}
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types.{DataType, MapType, StringType, StructType}

import txlog.protocol.TableConfiguration
import txlog.{Metadata, Protocol}
import txlog.errors.TxlogErrors
import txlog.protocol.ActionSchemas
import txlog.protocol.TableFeatures

/** A commit's file actions as JSON lines written by Spark (`to_json` of the action structs: the
  * spec's field names, null fields left out), one row per action: (kind, path, dvId, problem, line,
  * size, dvCardinality, dataChange). `problem` names what makes the action invalid, if anything;
  * `dvId` is the deletion vector's unique id ("" without one), so (kind, path, dvId) must be unique
  * per commit. The last three feed the commit's version checksum.
  */
private[txlog] object FileActionLines {

  val cdc: StructType = new StructType()
    .add("path", StringType)
    .add("partitionValues", MapType(StringType, StringType, valueContainsNull = true))
    .add("size", "long")
    .add("dataChange", "boolean")
    .add("tags", MapType(StringType, StringType, valueContainsNull = true))

  private val required: Map[String, Seq[String]] = Map(
    "add" -> Seq("path", "size", "partitionValues", "modificationTime", "dataChange"),
    "remove" -> Seq("path", "dataChange"),
    "cdc" -> Seq("path", "size", "partitionValues", "dataChange")
  )

  /** INVALID_COMMIT_ACTIONS when `df` lacks a column the spec requires of `kind`. */
  def checkColumns(table: String, kind: String, df: DataFrame): Unit = {
    val have = df.columns.toSet
    val missing = required(kind).filterNot(have)
    if (missing.nonEmpty) {
      throw TxlogErrors.invalidCommitActions(
        table,
        s"The $kind DataFrame has no column ${missing.mkString(", ")}; its columns: " +
          df.columns.mkString(", ")
      )
    }
  }

  private def field(df: DataFrame, name: String, schema: StructType): Column = {
    val t = schema(name).dataType
    val c =
      if (df.columns.contains(name)) conform(col(name), df.schema(name).dataType, t)
      else lit(null).cast(t)
    c.as(name)
  }

  /** `c` (of type `from`) as type `to`: structs field by field by name, optional fields the caller
    * left out (e.g. a deletion vector's `maxRowIndex`) null; anything else cast.
    */
  private def conform(c: Column, from: DataType, to: DataType): Column = (from, to) match {
    case (f: StructType, t: StructType) if f != t =>
      val have = f.fields.map(x => x.name -> x.dataType).toMap
      val fields = t.fields.toSeq.map { x =>
        have.get(x.name) match {
          case Some(ft) => conform(c.getField(x.name), ft, x.dataType).as(x.name)
          case None     => lit(null).cast(x.dataType).as(x.name)
        }
      }
      when(c.isNull, lit(null).cast(t)).otherwise(struct(fields: _*))
    case _ => c.cast(to)
  }

  private def dvId(dv: Column): Column = when(dv.isNull, lit("")).otherwise(
    concat_ws(
      "",
      dv.getField("storageType"),
      dv.getField("pathOrInlineDv"),
      when(dv.getField("offset").isNotNull, concat(lit("@"), dv.getField("offset")))
    )
  )

  private def problem(kind: String, a: Column): Column = {
    val checks = required(kind).map(f => a.getField(f).isNull -> s"$kind without $f")
    checks.foldRight(lit(null).cast(StringType)) { case ((bad, msg), rest) =>
      when(bad, concat(lit(msg + ": "), coalesce(a.getField("path"), lit("<no path>"))))
        .otherwise(rest)
    }
  }

  private def lines(
      kind: String,
      schema: StructType,
      df: DataFrame,
      md: Metadata,
      overrides: Map[String, Column],
      dvRules: Option[(Protocol, Boolean)] = None
  ): DataFrame = {
    val fields = schema.fieldNames.toSeq.map(n =>
      overrides
        .get(n)
        .map(_.as(n))
        .getOrElse(
          field(df, n, schema)
        )
    )
    val raw = col("raw")
    val (partitionValues, partitionProblem) =
      FileActionNames.partitionValues(kind, raw("partitionValues"), raw("path"), md)
    val statsProblem =
      if (kind == "add") FileActionNames.statsProblem(raw("stats"), raw("path"), md)
      else lit(null).cast(StringType)
    val dvProblem = dvRules
      .filter(_ => schema.fieldNames.contains("deletionVector"))
      .fold(lit(null).cast(StringType)) { case (p, restoring) =>
        deletionVectorProblem(raw("deletionVector"), raw("stats"), raw("path"), p, md, restoring)
      }
    val a = col("a")
    val hasDv = schema.fieldNames.contains("deletionVector")
    // What LiveRemoves found wrong with a remove, first.
    val matchProblem =
      if (df.columns.contains(LiveRemoves.Problem)) col(LiveRemoves.Problem)
      else lit(null).cast(StringType)
    df.select(struct(fields: _*).as("raw"), matchProblem.as("matchProblem"))
      .select(
        // A struct built field by field, not `withField`: its UpdateFields is unevaluable until
        // late in optimization, which keeps a local input (a small commit's staged rows) from
        // being folded into a local relation on the driver, so it cost a Spark job.
        struct(schema.fieldNames.toSeq.map { n =>
          (if (n == "partitionValues") partitionValues else raw(n)).as(n)
        }: _*).as("a"),
        coalesce(col("matchProblem"), dvProblem, partitionProblem, statsProblem)
          .as("namesProblem")
      )
      .select(
        lit(kind).as("kind"),
        a.getField("path").as("path"),
        (if (hasDv) dvId(a.getField("deletionVector")) else lit("")).as("dvId"),
        coalesce(problem(kind, a), col("namesProblem")).as("problem"),
        to_json(struct(a.as(kind))).as("line"),
        a.getField("size").cast("long").as("size"),
        (if (hasDv) a.getField("deletionVector").getField("cardinality").cast("long")
         else lit(null).cast("long")).as("dvCardinality"),
        a.getField("dataChange").as("dataChange")
      )
  }

  /** `df` with exactly the columns of `schema` (absent ones null), cast to its types; `df` itself
    * when it has that shape already (entries read by [[ActionEntries]]): no query to plan.
    */
  def shaped(df: DataFrame, schema: StructType): DataFrame =
    if (df.schema == schema) df
    else df.select(schema.fieldNames.toSeq.map(n => field(df, n, schema)): _*)

  /** Adds, partition values keyed as [[FileActionNames]] says for the table's metadata `md`; those
    * with a deletion vector checked by [[deletionVectorProblem]] against the protocol `p`.
    */
  def adds(df: DataFrame, md: Metadata, p: Protocol, restoring: Boolean = false): DataFrame =
    lines("add", ActionSchemas.add, df, md, Map.empty, Some((p, restoring)))

  /** What is wrong with an add of deletion vector `dv` (null: none), as delta-spark's
    * `OptimisticTransaction` refuses it: the protocol must support `deletionVectors`, the table
    * must have `delta.enableDeletionVectors` set (a RESTORE may re-add the files of a version from
    * before it was unset), and the stats must give `numRecords` (the spec's writer requirement:
    * readers count the file's rows from it) and, but in a RESTORE, `tightBounds` false
    * (delta-spark's rule for operations that may add new deletion vectors: the min and max of a
    * file with deleted rows may be rows no longer there). Null when nothing is.
    */
  private def deletionVectorProblem(
      dv: Column,
      stats: Column,
      path: Column,
      p: Protocol,
      md: Metadata,
      restoring: Boolean
  ): Column = {
    val config = TableConfiguration(p, md)
    val supported = config.deletionVectorsSupported
    val enabled = config.deletionVectorsEnabled
    val refused =
      if (!supported) Some("add with a deletion vector, but the protocol lacks deletionVectors")
      else if (!enabled && !restoring) {
        Some("add with a deletion vector, but delta.enableDeletionVectors is not true")
      } else None
    val noRecords = get_json_object(stats, "$.numRecords").isNull
    val problem = refused.fold(
      when(noRecords, lit("add with a deletion vector without numRecords in its stats"))
    )(lit(_))
    when(dv.isNotNull, concat(problem, lit(": "), coalesce(path, lit("<no path>"))))
  }

  /** Removes: `deletionTimestamp` is `commitTime` where not given. */
  def removes(df: DataFrame, commitTime: Long, md: Metadata): DataFrame = {
    val ts =
      if (df.columns.contains("deletionTimestamp")) {
        coalesce(col("deletionTimestamp").cast("long"), lit(commitTime))
      } else lit(commitTime)
    lines("remove", ActionSchemas.remove, df, md, Map("deletionTimestamp" -> ts))
  }

  def cdcs(df: DataFrame, md: Metadata): DataFrame = lines("cdc", cdc, df, md, Map.empty)
}
