package txlog.txn

import org.apache.spark.sql.Column
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types.{ArrayType, StringType}

import txlog.Metadata
import txlog.protocol.FileColumns

/** File actions name columns as the spec's "Column Mapping" writer requirements say: partition
  * values and statistics by the columns' physical names (the same as their names without column
  * mapping).
  *
  *   - `partitionValues` keyed by exactly the partition columns' physical names are written as they
  *     are; keyed by exactly their logical names (the natural way to write them) they are re-keyed
  *     to the physical names; any other key set is a problem (a reader would find no value, or
  *     another column's).
  *   - Under column mapping, statistics whose `minValues`, `maxValues` or `nullCount` name a
  *     top-level column that is not a data column's physical name are a problem: data skipping
  *     would ignore them, or apply them to another column.
  */
private[txlog] object FileActionNames {

  /** A literal array of strings (typedLit would pay for Scala reflection on every call). */
  private def strings(xs: Seq[String]): Column =
    if (xs.isEmpty) array().cast(ArrayType(StringType)) else array(xs.map(lit): _*)

  private def partitionNames(md: Metadata): (Seq[String], Seq[String]) = {
    val fields = FileColumns.partitionFields(md)
    (fields.map(_.name), fields.map(FileColumns.physicalName))
  }

  /** (partition values keyed by physical names, the problem or null) of a `partitionValues` column;
    * a null map stays null (whether it may be null is the caller's check).
    */
  def partitionValues(kind: String, pv: Column, path: Column, md: Metadata): (Column, Column) = {
    val (logical, physical) = partitionNames(md)
    val keys = array_sort(map_keys(pv))
    val byPhysical = keys === strings(physical.sorted)
    val byLogical = keys === strings(logical.sorted)
    val toPhysical = map_from_arrays(strings(logical), strings(physical))
    val keyed =
      if (logical == physical) pv
      else {
        // Only rows keyed by logical names are re-keyed (every key then has a physical name).
        when(byLogical && !byPhysical, transform_keys(pv, (k, _) => element_at(toPhysical, k)))
          .otherwise(pv)
      }
    val expected =
      if (logical == physical) physical.mkString("[", ", ", "]")
      else s"${physical.mkString("[", ", ", "]")} (logical ${logical.mkString("[", ", ", "]")})"
    val problem = when(
      pv.isNotNull && !byPhysical && !byLogical,
      concat(
        lit(s"$kind with partition values keyed "),
        concat_ws(", ", keys),
        lit(s" for the partition columns $expected: "),
        coalesce(path, lit("<no path>"))
      )
    )
    (keyed, problem)
  }

  /** The problem (or null) of an add's `stats` under column mapping; null without it. */
  def statsProblem(stats: Column, path: Column, md: Metadata): Column = {
    val data =
      md.schema.fields.toSeq.filterNot(f => md.partitionColumns.exists(_.equalsIgnoreCase(f.name)))
    val physical = data.map(FileColumns.physicalName)
    if (physical == data.map(_.name)) lit(null).cast(StringType)
    else {
      def keys(field: String) = coalesce(
        json_object_keys(get_json_object(stats, s"$$.$field")),
        strings(Nil)
      )
      val unknown = array_distinct(
        array_except(
          concat(keys("minValues"), keys("maxValues"), keys("nullCount")),
          strings(physical)
        )
      )
      when(
        stats.isNotNull && size(unknown) > 0,
        concat(
          lit(
            "add with stats naming columns that are not physical column names (column mapping " +
              "writes statistics by physical name): "
          ),
          concat_ws(", ", array_sort(unknown)),
          lit(": "),
          coalesce(path, lit("<no path>"))
        )
      )
    }
  }
}
