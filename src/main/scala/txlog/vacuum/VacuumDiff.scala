package txlog.vacuum

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.functions.{col, lit, max, sum}
import org.apache.spark.sql.types._

/** What VACUUM deletes, by delta-spark's rule: of the candidates (listed files and directories, or
  * a lite vacuum's removed files), files last modified before `deleteBefore` and every directory
  * are expanded into themselves plus, for listed files (`withParents`), each directory they lie in;
  * a path is deleted when it occurs exactly once there (a file, or a directory holding no such
  * file) and is not kept ([[ValidFiles]]: a live or retained file, a directory holding one, or a
  * deletion vector). A lite vacuum lists no directory, so it deletes files only.
  *
  * One shuffle: the expanded candidates and the kept paths are unioned and grouped by path (each
  * task pre-aggregates its rows first). Result columns: path, size (0 for directories),
  * isDirectory.
  */
private[txlog] object VacuumDiff {

  private val schema: StructType = new StructType()
    .add("path", StringType, nullable = false)
    .add("length", LongType, nullable = false)
    .add("isDir", BooleanType, nullable = false)
    .add("kept", IntegerType, nullable = false)

  def of(
      spark: SparkSession,
      candidates: RDD[Listed],
      kept: RDD[String],
      deleteBefore: Long,
      withParents: Boolean
  ): DataFrame = {
    val expanded = candidates.mapPartitions(_.flatMap(expand(_, deleteBefore, withParents)))
    val keptRows = kept.map(p => Row(p, 0L, false, 1))
    spark
      .createDataFrame(expanded.union(keptRows), schema)
      .groupBy("path")
      .agg(
        sum(lit(1) - col("kept")).as("n"),
        sum(col("length")).as("size"),
        max(col("isDir").cast(IntegerType)).as("dir"),
        max(col("kept")).as("kept")
      )
      .where(col("n") === 1 && col("kept") === 0)
      .select(col("path"), col("size"), (col("dir") === 1).as("isDirectory"))
  }

  /** A candidate as rows: a directory as itself; a file old enough as its directories and itself; a
    * newer file as nothing.
    */
  private def expand(e: Listed, deleteBefore: Long, withParents: Boolean): Iterator[Row] =
    if (e.isDir) Iterator.single(Row(e.path, 0L, true, 0))
    else if (e.mtime >= deleteBefore) Iterator.empty
    else
      (if (withParents) TableRoot.parents(e.path).map(d => Row(d, 0L, true, 0))
       else Iterator.empty) ++ Iterator.single(Row(e.path, e.length, false, 0))
}
