package txlog.vacuum

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.functions.{col, max, max_by}
import org.apache.spark.sql.types._

import txlog.errors.TxlogErrors
import txlog.protocol.ActionSchemas
import txlog.log.LogListing
import txlog.replay.{LogActions, NonFileState}

/** What a lite vacuum may delete: the files named by the remove actions (with their UUID-stored
  * deletion vectors) and cdc actions of the [[LiteWindow]]'s commits, read by tasks. A remove's
  * file counts as last modified at its deletionTimestamp, a cdc file as never (delta-spark's rule);
  * a path named twice keeps its newest time. Paths outside the root or in a hidden directory
  * (`_delta_log` among them) are skipped and counted.
  */
private[txlog] object LiteCandidates {

  private val schema: StructType = new StructType()
    .add(
      "remove",
      new StructType()
        .add("path", StringType)
        .add("deletionTimestamp", LongType)
        .add("size", LongType)
        .add("deletionVector", ActionSchemas.deletionVector)
    )
    .add("cdc", new StructType().add("path", StringType).add("size", LongType))

  private val listedSchema: StructType = new StructType()
    .add("path", StringType)
    .add("length", LongType)
    .add("mtime", LongType)

  def of(
      spark: SparkSession,
      listing: LogListing,
      window: LiteWindow,
      root: TableRoot,
      hidden: HiddenNames,
      skipped: SkippedPaths
  ): RDD[Listed] = {
    val commits =
      listing.commits.filter(c => c.version >= window.start && window.end.exists(c.version <= _))
    if (commits.isEmpty) return spark.sparkContext.emptyRDD[Listed]
    val actions = LogActions
      .tail(spark, listing.table, commits, schema)
      .where(
        col("remove").isNotNull || col("cdc").isNotNull ||
          col(LogActions.CorruptColumn).isNotNull
      )
    // A corrupt line fails the vacuum before anything is deleted (one row at most is collected).
    actions.where(col(LogActions.CorruptColumn).isNotNull).limit(1).collect().foreach { r =>
      val v = r.getAs[Long]("version")
      throw TxlogErrors.malformedLogFile(
        r.getAs[String]("file"),
        v,
        NonFileState.invalidLine(r.getAs[Long]("idx"), r.getAs[String](LogActions.CorruptColumn))
      )
    }
    val files = actions
      .select(
        col("remove.path"),
        col("remove.size"),
        col("remove.deletionTimestamp"),
        col("remove.deletionVector.storageType"),
        col("remove.deletionVector.pathOrInlineDv"),
        col("remove.deletionVector.sizeInBytes"),
        col("cdc.path"),
        col("cdc.size")
      )
      .rdd
      .mapPartitions(_.flatMap(r => named(root, hidden, skipped, r)))
    spark
      .createDataFrame(files, listedSchema)
      .groupBy("path")
      .agg(max_by(col("length"), col("mtime")).as("length"), max(col("mtime")).as("mtime"))
      .rdd
      .map(r => Listed(r.getString(0), r.getLong(1), isDir = false, r.getLong(2)))
      .setName(s"txlog: files removed in commits ${window.start} to ${window.end.get}")
  }

  /** The rows (path, length, mtime) one action names. */
  private def named(root: TableRoot, hidden: HiddenNames, skipped: SkippedPaths, r: Row) = {
    def long(i: Int) = if (r.isNullAt(i)) 0L else r.getAs[Number](i).longValue
    def visible(p: String, length: Long, mtime: Long, named: String): Option[Row] =
      if (hidden.anySegment(p)) { skipped.add(s"'$named' is in a hidden directory"); None }
      else Some(Row(p, length, mtime))
    def file(path: String, length: Long, mtime: Long): Option[Row] =
      root.relative(path) match {
        case Right(p)  => visible(p, length, mtime, path)
        case Left(why) => skipped.add(why); None
      }
    if (!r.isNullAt(0)) {
      val at = long(2)
      // Only deletion vectors stored by UUID lie in the table; absolute ones are left alone.
      val dv =
        if (r.isNullAt(3) || r.getString(3) != "u") None
        else
          root.deletionVector("u", r.getString(4)) match {
            case Right(Some(p)) => visible(p, long(5), at, p)
            case Right(None)    => None
            case Left(why)      => skipped.add(why); None
          }
      file(r.getString(0), long(1), at).iterator ++ dv.iterator
    } else if (!r.isNullAt(6)) file(r.getString(6), long(7), 0L).iterator
    else Iterator.empty
  }
}
