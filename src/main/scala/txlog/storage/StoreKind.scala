package txlog.storage

import txlog.config.TxlogConf
import txlog.errors.TxlogErrors

/** The kinds of storage txlog tells apart when publishing log files. */
private[txlog] sealed abstract class StoreKind(val name: String)

private[txlog] object StoreKind {

  /** Local disks: a hard link for put-if-absent, an atomic move for overwrite. */
  case object Local extends StoreKind("local")

  /** File systems with an atomic rename that can refuse an existing target (HDFS). */
  case object Rename extends StoreKind("rename")

  /** Object stores: no atomic rename; put-if-absent only by a conditional create. */
  case object Object extends StoreKind("object")

  val all: Seq[StoreKind] = Seq(Local, Rename, Object)

  /** Schemes with a known kind; any other scheme is treated as an object store (the safe choice: it
    * refuses to write rather than risk replacing a log file).
    */
  val defaults: Map[String, StoreKind] = Map("file" -> Local, "hdfs" -> Rename, "viewfs" -> Rename)

  /** The kind named `value` in the setting `key`. */
  def parse(key: String, value: String): StoreKind =
    all.find(_.name == value.trim.toLowerCase).getOrElse {
      throw TxlogErrors.invalidSetting(key, value, s"one of ${all.map(_.name).mkString(", ")}")
    }
}
