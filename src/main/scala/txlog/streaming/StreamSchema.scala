package txlog.streaming

import org.apache.spark.sql.types.StructType

import txlog.Snapshot
import txlog.errors.TxlogErrors
import txlog.scan.ReadSpec

/** The schema of a stream of a table: the table's columns at `snapshot` as its reader shows them
  * (partition columns in their schema position). A schema the reader gives (`.schema(...)`, or the
  * catalog's entry) must be that one, names and types: SCHEMA_MISMATCH otherwise, as delta-spark
  * refuses a schema given at read time. With `changes`, the change data feed's columns follow.
  *
  * {{{
  * StreamSchema.of(snapshot, None).fieldNames
  * }}}
  */
private[txlog] object StreamSchema {

  def of(
      snapshot: Snapshot,
      userSchema: Option[StructType],
      changes: Boolean = false
  ): StructType = {
    val schema =
      if (changes) ChangeStreamSource.schema(snapshot) else ReadSpec(snapshot).dataSchema
    userSchema.filter(_.nonEmpty).foreach { g =>
      if (!g.catalogString.equalsIgnoreCase(schema.catalogString)) {
        throw TxlogErrors.schemaMismatch(
          snapshot.tablePath,
          s"a stream of the table reads it with its own schema ${schema.catalogString}; " +
            s"the schema given is ${g.catalogString}. Read without .schema(...)."
        )
      }
    }
    schema
  }
}
