package txlog.python

import java.util.{Map => JMap}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.DataFrame

import txlog.{DeltaLog, WriteOptions}
import txlog.errors.TxlogErrors
import txlog.sql.DmlStatements
import txlog.util.OptionValues

/** The data-writing half of [[PythonFacade]] (Python's `txlog.write`); its methods are called as
  * `PythonFacade.<name>`.
  */
private[python] trait WriteFacade extends FacadeArgs {

  private val WriteKeys = Set(
    "mode",
    "partitionBy",
    "replaceWhere",
    "txnAppId",
    "txnVersion",
    "mergeSchema",
    "overwriteSchema"
  )

  /** `DeltaLog.write` by options: `mode`, `partitionBy` (a JSON array of names), `replaceWhere`,
    * `txnAppId`, `txnVersion`, `mergeSchema` and `overwriteSchema` ("true" or "false");
    * `properties` separately. An unknown option is INVALID_ARGUMENT. Returns the result's summary
    * as JSON. Example: `PythonFacade.write(df._jdf, "/data/t", {"mode": "append"}, {})`.
    */
  def write(
      df: DataFrame,
      path: String,
      options: JMap[String, String],
      properties: JMap[String, String]
  ): String = {
    val o = asScala(options)
    val unknown = o.keySet -- WriteKeys
    if (unknown.nonEmpty) {
      throw TxlogErrors.invalidArgument(
        unknown.toSeq.sorted.head,
        s"unknown write option; known: ${WriteKeys.toSeq.sorted.mkString(", ")}"
      )
    }
    val parts = o.get("partitionBy").map(names("partitionBy", _))
    val r = DeltaLog.write(
      df,
      path,
      WriteOptions(
        mode = o.getOrElse("mode", "append"),
        partitionBy = parts.getOrElse(Nil),
        properties = asScala(properties),
        replaceWhere = o.get("replaceWhere"),
        txnAppId = o.get("txnAppId"),
        txnVersion = OptionValues.wholeNumber(o, "txnVersion"),
        mergeSchema = OptionValues.flag(o, "mergeSchema", default = false),
        overwriteSchema = OptionValues.flag(o, "overwriteSchema", default = false)
      )
    )
    r.toJson
  }

  /** `DeltaLog.delete`; the result's summary as JSON. Example: `PythonFacade.delete(log, "d < 3")`.
    */
  def delete(log: DeltaLog, predicate: String): String = log.delete(predicate).toJson

  /** `DeltaLog.update`: `condition` (null for every row) and `set`, a JSON object of column to SQL
    * expression; the result's summary as JSON. Example: `PythonFacade.updateRows(log, "id = 7",
    * "{\"v\": \"'x'\"}")`.
    */
  def updateRows(log: DeltaLog, condition: String, set: String): String = {
    val assignments = pairs("set", set).toMap
    val r = if (condition == null) log.update(assignments) else log.update(condition, assignments)
    r.toJson
  }

  /** `DeltaLog.merge(...).execute()`: `clauses` a JSON array of `{"kind", "condition", "set"}`, in
    * order (`kind` as `txlog.sql.DmlStatements.Kinds`, `set` null for `SET *` / `INSERT *`); the
    * result's summary as JSON; `schemaEvolution` as `MergeBuilder.withSchemaEvolution()`. Example:
    * `PythonFacade.merge(log, df, "target.id = id", "target", "[{\"kind\": \"matched_delete\"}]",
    * false)`.
    */
  def merge(
      log: DeltaLog,
      source: DataFrame,
      condition: String,
      targetAlias: String,
      clauses: String,
      schemaEvolution: Boolean
  ): String = {
    val node = tree(clauses)
    if (node == null || !node.isArray || !node.elements().asScala.forall(_.isObject)) {
      throw TxlogErrors.invalidArgument("clauses", "must be a JSON array of clause objects")
    }
    val all = node.elements().asScala.toSeq.map { c =>
      c.fieldNames().asScala.find(k => !ClauseKeys.contains(k)).foreach { k =>
        throw TxlogErrors.invalidArgument(k, s"not a clause key (${ClauseKeys.mkString(", ")})")
      }
      def text(k: String) = Option(c.get(k)).filterNot(_.isNull).map(_.asText)
      val set = Option(c.get("set")).filterNot(_.isNull).map(n => pairs("set", n.toString))
      DmlStatements.Clause(
        text("kind").getOrElse(""),
        text("condition"),
        set.orElse {
          if (text("kind").exists(_.endsWith("_delete"))) Some(Nil) else None
        }
      )
    }
    val builder = log.merge(source, condition, targetAlias)
    val evolving = if (schemaEvolution) builder.withSchemaEvolution() else builder
    all.foldLeft(evolving)(_.add(_)).execute().toJson
  }

  private val ClauseKeys = Seq("kind", "condition", "set")

  /** `json`, a JSON object of text values, its pairs in order; or INVALID_ARGUMENT naming `name`.
    */
  private def pairs(name: String, json: String): Seq[(String, String)] = {
    val node = tree(json)
    if (node == null || !node.isObject || !node.elements().asScala.forall(_.isTextual)) {
      throw TxlogErrors.invalidArgument(name, "must map column names to SQL expressions")
    }
    node.fields().asScala.map(e => e.getKey -> e.getValue.asText).toSeq
  }

  private val OptimizeKeys = Set("where", "targetSize", "minFileSize", "dryRun")

  /** `DeltaLog.optimize` by options: `where`, `targetSize`, `minFileSize` (bytes), `dryRun`
    * ("false" by default); the result's summary as JSON. Example: `PythonFacade.optimize(log,
    * {"dryRun": "true"})`.
    */
  def optimize(log: DeltaLog, options: JMap[String, String]): String = {
    val o = asScala(options)
    (o.keySet -- OptimizeKeys).toSeq.sorted.headOption.foreach { k =>
      throw TxlogErrors.invalidArgument(k, "unknown optimize option")
    }
    val default = txlog.write.Optimize.DefaultTargetSize
    log
      .optimize(
        o.get("where"),
        OptionValues.wholeNumber(o, "targetSize").getOrElse(default),
        OptionValues.wholeNumber(o, "minFileSize").getOrElse(default),
        OptionValues.flag(o, "dryRun", default = false)
      )
      .toJson
  }

  private val PurgeKeys = Set("where", "dryRun")

  /** `DeltaLog.purgeDeletionVectors` by options: `where`, `dryRun` ("false" by default); the
    * result's summary as JSON. Example: `PythonFacade.purgeDeletionVectors(log, {})`.
    */
  def purgeDeletionVectors(log: DeltaLog, options: JMap[String, String]): String = {
    val o = asScala(options)
    (o.keySet -- PurgeKeys).toSeq.sorted.headOption.foreach { k =>
      throw TxlogErrors.invalidArgument(k, "unknown purge option")
    }
    log.purgeDeletionVectors(o.get("where"), OptionValues.flag(o, "dryRun", default = false)).toJson
  }
}
