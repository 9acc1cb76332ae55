package txlog.repair

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{Column, DataFrame, Row, SparkSession}
import org.apache.spark.sql.functions.{col, lit}
import org.apache.spark.sql.types.{StringType, StructType}

import txlog.Snapshot
import txlog.protocol.ActionSchemas
import txlog.inspect.{FileRules, Rules}
import txlog.util.SerializableConf

/** The live files of a snapshot whose data file or deletion vector file is gone or wrong, found by
  * tasks asking the Hadoop FileSystem (validate's file rules); the list never reaches the driver.
  *
  * Each row is a remove action for the file, carrying what its add carried (as the spec asks of
  * removes with `extendedFileMetadata`; the commit sets `deletionTimestamp`), plus `_rule` and
  * `_detail`: why. A file whose data or DV file is missing can no longer be read, so repair removes
  * it; a size mismatch or a DV file too short is reported, never acted on (the file is there and
  * may be the one the log meant).
  */
private[txlog] object LostFiles {
  val Rule = "_rule"
  val Detail = "_detail"

  /** The rules whose files repair removes. */
  val Removable: Set[String] = Set(Rules.MissingDataFile, Rules.MissingDvFile)

  def find(spark: SparkSession, snapshot: Snapshot): DataFrame = {
    val root = snapshot.tablePath
    val version = snapshot.version
    val conf = new SerializableConf(snapshot.segment.table.readConf)
    val removeFields: Seq[Column] = ActionSchemas.remove.fieldNames.toSeq.collect {
      case "dataChange"                  => lit(true).as("dataChange")
      case "extendedFileMetadata"        => lit(true).as("extendedFileMetadata")
      case f if f != "deletionTimestamp" => col(f)
    }
    val n = removeFields.size
    val input = snapshot.allFiles.select(removeFields ++ FileRules.Checked: _*)
    val schema = StructType(input.schema.fields.take(n))
      .add(Rule, StringType, nullable = false)
      .add(Detail, StringType, nullable = false)
    val rows = input.rdd.mapPartitions { it =>
      lazy val fs = new Path(root).getFileSystem(conf.value)
      it.flatMap { r =>
        val findings = FileRules.check(fs, root, version, Row.fromSeq(r.toSeq.drop(n)))
        // One row per file: a missing file first, then any other finding.
        findings.sortBy(f => if (Removable(f.rule)) 0 else 1).headOption.map { f =>
          Row.fromSeq(r.toSeq.take(n) ++ Seq(f.rule, f.detail))
        }
      }
    }
    rows.setName(s"txlog: find lost files of $root v$version")
    spark.createDataFrame(rows, schema)
  }
}
