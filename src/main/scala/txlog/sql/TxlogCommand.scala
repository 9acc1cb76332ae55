package txlog.sql

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.functions.col
import org.apache.spark.sql.types._

import txlog._
import txlog.errors.TxlogErrors
import txlog.inspect.Finding
import txlog.protocol.ActionSchemas
import txlog.util.{SummaryField, SummaryShape}

/** A txlog statement on the table at `path`, run when Spark executes the plan (eagerly, as
  * `spark.sql` does for commands): the rows the Scala and Python API give for it.
  */
private[txlog] final case class TxlogCommand(
    statement: SqlStatement,
    path: String,
    override val output: Seq[Attribute]
) extends LeafRunnableCommand {
  import SqlStatement._

  override def run(spark: SparkSession): Seq[Row] = {
    val log = DeltaLog.forTable(spark, path)
    statement match {
      case History(_, limit) =>
        val h = log.history()
        rows(limit.fold(h)(h.limit), TxlogCommand.HistorySchema)
      case Detail(_) => Seq(TxlogCommand.detailRow(log.describe()))
      case Vacuum(_, hours, dryRun, lite) =>
        hours.filter(_ < 0).foreach { h =>
          throw TxlogErrors.invalidArgument("RETAIN", s"$h hours is negative")
        }
        // Never forced: a retention shorter than the table's is refused, as the command line does.
        val r = log.vacuum(hours, dryRun = dryRun, lite = lite)
        try summary(VacuumResult.Summary, r)
        finally r.unpersist()
      case Optimize(_, where) => summary(OptimizeResult.Summary, log.optimize(where))
      case Purge(_, where)    => summary(OptimizeResult.Summary, log.purgeDeletionVectors(where))
      case Restore(_, version, timestamp) =>
        val zone = java.time.ZoneId.of(spark.conf.get("spark.sql.session.timeZone"))
        val ts =
          timestamp.map(t => txlog.timetravel.TimestampText.parse(t, zone).toInstant.toString)
        summary(RestoreResult.Summary, log.restore(version, ts))
      case Checkpoint(_) => summary(CheckpointResult.Summary, log.checkpoint())
      case Validate(_) =>
        val findings = log.validate()
        try rows(findings, Finding.schema)
        finally { findings.unpersist(); () }
      case Repair(_, dryRun, force) =>
        val r = log.repair(dryRun = dryRun, force = force)
        try summary(RepairResult.Summary, r)
        finally r.unpersist()
      case AddConstraint(_, name, condition) =>
        TableConstraints.add(log.context, name, condition)
        Nil
      case DropConstraint(_, name, ifExists) =>
        TableConstraints.drop(log.context, name, ifExists)
        Nil
    }
  }

  private def rows(df: DataFrame, schema: StructType): Seq[Row] =
    df.select(schema.fields.toSeq.map(f => col(s"`${f.name}`").cast(f.dataType)): _*)
      .collect()
      .toSeq

  private def summary[R](shape: SummaryShape[R], r: R): Seq[Row] =
    Seq(Row.fromSeq(shape.facadeValues(r).map {
      case (_, l: java.util.List[_]) => l.asScala.toSeq
      case (_, v)                    => v
    }))
}

private[txlog] object TxlogCommand {
  import SqlStatement._

  /** The columns of `statement`'s rows. */
  def outputOf(statement: SqlStatement): Seq[Attribute] = toAttributes(statement match {
    case _: History                           => HistorySchema
    case _: Detail                            => DetailSchema
    case _: Vacuum                            => schemaOf(VacuumResult.Summary)
    case _: Optimize                          => schemaOf(OptimizeResult.Summary)
    case _: Purge                             => schemaOf(OptimizeResult.Summary)
    case _: Restore                           => schemaOf(RestoreResult.Summary)
    case _: Checkpoint                        => schemaOf(CheckpointResult.Summary)
    case _: Validate                          => Finding.schema
    case _: Repair                            => schemaOf(RepairResult.Summary)
    case _: AddConstraint | _: DropConstraint => new StructType() // as delta-spark's: no rows
  })

  /** `DeltaLog.history()`'s columns: version, timestamp, then commitInfo's fields. */
  val HistorySchema: StructType = StructType(
    StructField("version", LongType) +: StructField("timestamp", TimestampType) +:
      ActionSchemas.commitInfo.fields.toSeq.filterNot(f =>
        Set("timestamp", "inCommitTimestamp").contains(f.name)
      )
  )

  /** delta-spark's DESCRIBE DETAIL columns that `DeltaLog.describe()` has, under its names. */
  val DetailSchema: StructType = new StructType()
    .add("format", StringType)
    .add("id", StringType)
    .add("name", StringType)
    .add("description", StringType)
    .add("location", StringType)
    .add("createdAt", TimestampType)
    .add("lastModified", TimestampType)
    .add("partitionColumns", ArrayType(StringType))
    .add("numFiles", LongType)
    .add("sizeInBytes", LongType)
    .add("properties", MapType(StringType, StringType))
    .add("minReaderVersion", IntegerType)
    .add("minWriterVersion", IntegerType)
    .add("tableFeatures", ArrayType(StringType))

  private def detailRow(d: TableDescription): Row = Row(
    d.format,
    d.id,
    d.name.orNull,
    d.description.orNull,
    d.location,
    d.createdAt.orNull,
    d.lastModified,
    d.partitionColumns,
    d.numFiles,
    d.sizeInBytes,
    d.properties,
    d.minReaderVersion,
    d.minWriterVersion,
    d.tableFeatures
  )

  /** A summary's fields (the facade's head first) as columns, typed as Python declares them. */
  private def schemaOf[R](shape: SummaryShape[R]): StructType = {
    val fields = shape.facadeFields
    StructType(fields.map(f => StructField(f.name, typeOf(f))))
  }

  private def typeOf(f: SummaryField[_]): DataType = f.pythonType match {
    case "int" | "int | None" => LongType
    case "float"              => DoubleType
    case "bool"               => BooleanType
    case "str" | "str | None" => StringType
    case "list[str]"          => ArrayType(StringType)
    case other                => throw new IllegalStateException(s"summary type $other")
  }

  private def toAttributes(s: StructType): Seq[Attribute] =
    s.fields.toSeq.map(f => AttributeReference(f.name, f.dataType, nullable = true)())
}
