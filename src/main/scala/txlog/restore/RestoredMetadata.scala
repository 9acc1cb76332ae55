package txlog.restore

import scala.util.Try

import txlog.Metadata
import txlog.protocol.{ColumnMapping, IdentityColumns}

/** The metadata a restore commits: the restored version's, as delta-spark restores it, but for the
  * column mapping high water mark (`delta.columnMapping.maxColumnId`), which keeps the larger of
  * both versions' so that column ids used since are never handed out again, and the identity
  * columns' high water marks, which keep the furthest of both versions' (as delta-spark merges
  * them) so that identity values given since are never given again.
  */
private[txlog] object RestoredMetadata {

  def of(latest: Metadata, restored: Metadata): Metadata =
    identityMarks(latest, mapping(latest, restored))

  private def identityMarks(latest: Metadata, restored: Metadata): Metadata = {
    val marks = for {
      before <- Try(IdentityColumns.of("", latest.schema)).getOrElse(Nil)
      after <- Try(IdentityColumns.of("", restored.schema)).getOrElse(Nil)
      if before.name == after.name && before.step == after.step
      h <- before.highWaterMark
      if after.highWaterMark.forall(a => if (after.step > 0) h > a else h < a)
    } yield after.name -> h
    if (marks.isEmpty) restored else IdentityColumns.withMarks(restored, marks.toMap)
  }

  private def mapping(latest: Metadata, restored: Metadata): Metadata = {
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
