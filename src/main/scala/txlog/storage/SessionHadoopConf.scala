package txlog.storage

import java.lang.reflect.Method
import java.util.Properties
import java.util.concurrent.atomic.AtomicReference
import java.util.function.BiConsumer

import scala.util.Try

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.txlog.SqlSettings

/** The session's Hadoop configuration, as `spark.sessionState.newHadoopConf()` makes it (the
  * SparkContext's Hadoop configuration with every SQL setting of the session set on it), copied
  * once and given again while nothing it was made from has changed. A copy of a configuration of
  * about 1,100 entries cost 0.2 ms measured alone, and a third of the JVM's samples in a loop
  * opening small tables (`DeltaLog.forTable` then a snapshot), with the garbage it leaves.
  *
  * The copy is given again only when, compared exactly:
  *   - the session's SQL settings ([[SqlSettings]]) equal those it was made with;
  *   - the SparkContext's configuration is the same object with the same class loader, and it holds
  *     the very entries (the same key and value objects) it held when the copy was made;
  *   - the copy holds the entries and class loader it was made with (a caller that set something on
  *     it does not reach the next caller).
  *
  * Otherwise a new copy is made. Where Hadoop's entries cannot be read (`Configuration.getProps` is
  * not reachable), every call makes a copy, as Spark does.
  *
  * Bound: one copy, and two arrays of references to the entries of the SparkContext's configuration
  * and of the copy (2 x 2 x 1,100 references for a default configuration); the last session asked
  * for replaces it.
  *
  * {{{
  * val conf = SessionHadoopConf.of(spark)  // the same object on the next call, if nothing changed
  * }}}
  */
private[txlog] object SessionHadoopConf {

  private final class Copy(
      val settings: java.util.Map[String, String],
      val base: Configuration,
      val baseLoader: ClassLoader,
      val baseEntries: Array[AnyRef],
      val conf: Configuration,
      val confEntries: Array[AnyRef]
  )

  private val last = new AtomicReference[Copy]()

  /** `Configuration.getProps`: the live entries, loaded from its resources when not yet loaded. */
  private lazy val getProps: Option[Method] = Try {
    val m = classOf[Configuration].getDeclaredMethod("getProps")
    m.setAccessible(true)
    m
  }.toOption

  /** The session's Hadoop configuration; callers must not change it (copy it to change it). */
  def of(spark: SparkSession): Configuration = getProps match {
    case None        => spark.sessionState.newHadoopConf()
    case Some(props) => cached(spark, props)
  }

  private def entries(props: Method, conf: Configuration): Properties =
    props.invoke(conf).asInstanceOf[Properties]

  /** The keys and values of `p`, by reference, in the order its table holds them. */
  private def pairs(p: Properties): Array[AnyRef] = {
    val out = new java.util.ArrayList[AnyRef](2 * p.size + 16)
    p.forEach((k: AnyRef, v: AnyRef) => { out.add(k); out.add(v); () })
    out.toArray
  }

  /** Whether `p` holds exactly `pairs`: the same keys and values, the same objects, in the same
    * order. A table that grew, or a value set again (even an equal one), reads as changed: a copy
    * too many, never a stale one. A walk without hashing (or an entry object per entry, as its
    * iterator makes): a few microseconds for 1,100 entries, where comparing as maps cost half a
    * copy.
    */
  private def holds(p: Properties, pairs: Array[AnyRef]): Boolean = {
    val walk = new Walk(pairs)
    p.forEach(walk)
    walk.matched
  }

  private final class Walk(pairs: Array[AnyRef]) extends BiConsumer[AnyRef, AnyRef] {
    private var i = 0
    private var same = true
    def accept(k: AnyRef, v: AnyRef): Unit =
      if (same) {
        if (i >= pairs.length || (k ne pairs(i)) || (v ne pairs(i + 1))) same = false
        else i += 2
      }
    def matched: Boolean = same && i == pairs.length
  }

  private def cached(spark: SparkSession, props: Method): Configuration = {
    val base = spark.sparkContext.hadoopConfiguration
    val sql = spark.sessionState.conf
    val c = last.get
    val same = c != null && (c.base eq base) && SqlSettings.same(sql, c.settings) &&
      (base.getClassLoader eq c.baseLoader) && holds(entries(props, base), c.baseEntries) &&
      (c.conf.getClassLoader eq c.baseLoader) && holds(entries(props, c.conf), c.confEntries)
    if (same) c.conf
    else {
      // The settings and the base's entries are taken before the copy: a change between the two
      // makes the next call see entries unlike these, and copy again (the other order could keep
      // a stale copy).
      val settings = SqlSettings.take(sql)
      val baseEntries = pairs(entries(props, base))
      val loader = base.getClassLoader
      val conf = new Configuration(base)
      // as Spark's SessionState.newHadoopConf, with the settings taken above
      settings.forEach((k: String, v: String) => if (v ne null) conf.set(k, v))
      val confEntries = pairs(entries(props, conf))
      last.set(new Copy(settings, base, loader, baseEntries, conf, confEntries))
      conf
    }
  }
}
