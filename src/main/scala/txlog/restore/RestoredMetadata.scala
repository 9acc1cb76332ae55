package txlog.restore

import scala.util.Try

import txlog.Metadata
import txlog.protocol.ColumnMapping

/** The metadata a restore commits: the restored version's, as delta-spark restores it, but for the
  * column mapping high water mark (`delta.columnMapping.maxColumnId`), which keeps the larger of
  * both versions' so that column ids used since are never handed out again.
  */
private[txlog] object RestoredMetadata {

  def of(latest: Metadata, restored: Metadata): Metadata = {
    val key = ColumnMapping.MaxIdProperty
    def max(md: Metadata) = md.configuration.get(key).flatMap(v => Try(v.trim.toLong).toOption)
    val mode = restored.configuration.getOrElse(ColumnMapping.ModeProperty, "none")
    (max(latest) ++ max(restored)).reduceOption(_ max _) match {
      case Some(m) if !mode.trim.equalsIgnoreCase("none") =>
        restored.copy(configuration = restored.configuration + (key -> m.toString))
      case _ => restored
    }
  }
}
