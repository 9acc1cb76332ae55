package org.apache.spark.sql.txlog

import org.apache.spark.sql.internal.SQLConf

/** A session's SQL settings (`SQLConf`'s own map, `protected[spark]` on every line) taken and
  * compared without building a Scala map: `getAllConfs` copies them into an immutable map on each
  * call, which the driver's caches of things built from the settings (Spark's JSON parser, the
  * session's Hadoop configuration) paid on every small table opened (a few percent of one, in a JFR
  * profile of W15, issue #66).
  *
  * {{{
  * val taken = SqlSettings.take(conf)
  * SqlSettings.same(conf, taken) // false once a setting changed
  * }}}
  */
object SqlSettings {

  /** A copy of `conf`'s settings (key to value), taken under the map's lock. */
  def take(conf: SQLConf): java.util.Map[String, String] = {
    val live = conf.settings
    live.synchronized(new java.util.HashMap[String, String](live))
  }

  /** Whether `conf`'s settings are now exactly `taken` (the same keys with equal values). */
  def same(conf: SQLConf, taken: java.util.Map[String, String]): Boolean =
    conf.settings.equals(taken) // a synchronized map's equals holds its lock
}
