package txlog.replay

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.txlog.SparkJson

import txlog.SparkSuite
import txlog.protocol.ActionSchemas

/** `SparkJson.parser` gives a thread its kept parser again only for the same schema object, time
  * zone, corrupt column and SQL settings; each thread its own; and a kept parser parses again.
  */
class SparkJsonParserSuite extends SparkSuite {
  private val line = """{"add":{"path":"a","size":3,"modificationTime":1,"dataChange":true}}"""
  private val corrupt = LogActions.CorruptColumn

  test("the kept parser for the same arguments and settings; a new one for any change") {
    SparkSession.setActiveSession(spark) // SQLConf.get: this session's settings
    val schema = ActionSchemas.fileActions
    val a = SparkJson.parser(schema, "UTC", corrupt)
    assert(SparkJson.parser(schema, "UTC", corrupt) eq a)
    assert(SparkJson.parser(schema, "Asia/Tokyo", corrupt) ne a)
    assert(SparkJson.parser(copyOf(schema), "UTC", corrupt) ne a)
    withConf("spark.sql.json.enablePartialResults" -> "false") {
      assert(SparkJson.parser(schema, "UTC", corrupt) ne a)
    }
    var other: AnyRef = null
    val t = new Thread(() => other = SparkJson.parser(schema, "UTC", corrupt))
    t.start()
    t.join()
    assert((other ne null) && (other ne a))
    val kept = SparkJson.parser(schema, "UTC", corrupt)
    val first = kept(line).map(_.copy()).toSeq
    assert(first == kept(line).map(_.copy()).toSeq)
    assert(first.head.getStruct(0, ActionSchemas.add.length).getUTF8String(0).toString == "a")
  }

  private def copyOf(s: org.apache.spark.sql.types.StructType) =
    org.apache.spark.sql.types.StructType(s.fields.clone())
}
