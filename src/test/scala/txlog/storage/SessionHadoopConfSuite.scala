package txlog.storage

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration

import txlog.SparkSuite

/** [[SessionHadoopConf]] gives what Spark's `sessionState.newHadoopConf()` gives, the same object
  * while nothing it was made from changed, and a new copy after any change: a SQL setting, an entry
  * of the SparkContext's configuration (even one that keeps their number), a caller's change to the
  * copy, another session's settings.
  */
class SessionHadoopConfSuite extends SparkSuite {
  private def entries(conf: Configuration): Map[String, String] =
    conf.iterator().asScala.map(e => e.getKey -> e.getValue).toMap

  private def withHadoop[T](key: String, value: String)(body: => T): T = {
    val hc = spark.sparkContext.hadoopConfiguration
    hc.set(key, value)
    try body
    finally hc.unset(key)
  }

  test("the entries of Spark's own copy, in one object while nothing changes") {
    withConf("txlog.test.session" -> "s") {
      val a = SessionHadoopConf.of(spark)
      assert(entries(a) == entries(spark.sessionState.newHadoopConf()))
      assert(a.get("txlog.test.session") == "s")
      assert(SessionHadoopConf.of(spark) eq a)
    }
  }

  test("a SQL setting set or unset gives a new copy") {
    val before = SessionHadoopConf.of(spark)
    assert(before.get("txlog.test.sql") == null)
    withConf("txlog.test.sql" -> "1") {
      val set = SessionHadoopConf.of(spark)
      assert((set ne before) && set.get("txlog.test.sql") == "1")
      spark.conf.set("txlog.test.sql", "2")
      assert(SessionHadoopConf.of(spark).get("txlog.test.sql") == "2")
    }
    assert(SessionHadoopConf.of(spark).get("txlog.test.sql") == null)
  }

  test("a changed entry of the SparkContext's configuration gives a new copy") {
    val hc = spark.sparkContext.hadoopConfiguration
    withHadoop("txlog.test.hadoop", "1") {
      val a = SessionHadoopConf.of(spark)
      assert(a.get("txlog.test.hadoop") == "1")
      val size = hc.size()
      hc.set("txlog.test.hadoop", "2") // the same number of entries
      assert(hc.size() == size)
      val b = SessionHadoopConf.of(spark)
      assert((b ne a) && b.get("txlog.test.hadoop") == "2")
      assert(entries(b) == entries(spark.sessionState.newHadoopConf()))
    }
    assert(SessionHadoopConf.of(spark).get("txlog.test.hadoop") == null)
  }

  test("a change a caller made to the copy does not reach the next caller") {
    val a = SessionHadoopConf.of(spark)
    a.set("txlog.test.caller", "x")
    val b = SessionHadoopConf.of(spark)
    assert((b ne a) && b.get("txlog.test.caller") == null)
    val loader = new java.net.URLClassLoader(Array.empty[java.net.URL], getClass.getClassLoader)
    b.setClassLoader(loader)
    val c = SessionHadoopConf.of(spark)
    assert((c ne b) && (c.getClassLoader ne loader))
  }

  test("each session its own settings") {
    val other = spark.newSession()
    other.conf.set("txlog.test.other", "o")
    assert(SessionHadoopConf.of(other).get("txlog.test.other") == "o")
    assert(SessionHadoopConf.of(spark).get("txlog.test.other") == null)
    assert(SessionHadoopConf.of(other).get("txlog.test.other") == "o")
  }
}
