package txlog.sql

import org.apache.spark.sql.catalyst.analysis.{UnresolvedExtractValue, UnresolvedFunction}
import org.apache.spark.sql.catalyst.expressions.{
  Cast,
  CreateNamedStruct,
  Expression,
  If,
  IsNull,
  LambdaFunction,
  Literal,
  UnresolvedNamedLambdaVariable
}
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructType}

import txlog.write.TableSchemaCheck

/** A MERGE's source struct aligned to the target's struct by field name, for the star clauses of a
  * MERGE with schema evolution ([[MergeEvolution]]), as delta-spark aligns them: each field of the
  * target's struct from the source's field of that name (aligned likewise when it is a struct too);
  * a field the source lacks from `old` (the target row's struct: `UPDATE SET *` keeps the row's
  * value) or null (`INSERT *`, where `old` is None). A null source struct stays null. A value whose
  * type is not a struct both sides, or is the target's already, is left as it is.
  *
  * {{{
  * StructAlign(UnresolvedAttribute(Seq("s", "payload")), sourceType, targetType, None)
  * }}}
  */
private[txlog] object StructAlign {

  def apply(v: Expression, from: DataType, to: DataType, old: Option[Expression]): Expression =
    (from, to) match {
      case (s: StructType, t: StructType) if !TableSchemaCheck.sameType(s, t) =>
        def at(e: Expression, name: String): Expression = UnresolvedExtractValue(e, Literal(name))
        val fields = t.fields.toSeq.flatMap { tf =>
          val value = s.fields.find(_.name.equalsIgnoreCase(tf.name)) match {
            case Some(sf) =>
              apply(at(v, sf.name), sf.dataType, tf.dataType, old.map(at(_, tf.name)))
            case None => old.fold[Expression](Cast(Literal(null), tf.dataType))(at(_, tf.name))
          }
          Seq(Literal(tf.name), value)
        }
        val struct = CreateNamedStruct(fields)
        // an update keeps the row's values of fields the source lacks, also under a null source
        // struct (its own fields then null); else a null source struct stays null
        if (old.isDefined && targetOnly(s, t)) struct else If(IsNull(v), Literal(null, t), struct)
      case (s: ArrayType, t: ArrayType) if !TableSchemaCheck.sameType(s, t) =>
        val x = lambda()
        val body = apply(x, s.elementType, t.elementType, None)
        UnresolvedFunction(Seq("transform"), Seq(v, LambdaFunction(body, Seq(x))), false)
      case (s: MapType, t: MapType)
          if TableSchemaCheck.sameType(s.keyType, t.keyType) &&
            !TableSchemaCheck.sameType(s.valueType, t.valueType) =>
        val (k, x) = (lambda(), lambda())
        val body = apply(x, s.valueType, t.valueType, None)
        UnresolvedFunction(Seq("transform_values"), Seq(v, LambdaFunction(body, Seq(k, x))), false)
      case _ => v
    }

  private val lambdas = new java.util.concurrent.atomic.AtomicLong()

  /** A lambda variable of a name no statement uses. */
  private def lambda(): UnresolvedNamedLambdaVariable =
    UnresolvedNamedLambdaVariable(Seq(s"__txlog_element_${lambdas.incrementAndGet()}"))

  /** Whether `t` has a field `s` lacks, at any depth of structs in structs. */
  private def targetOnly(s: StructType, t: StructType): Boolean = t.fields.exists { tf =>
    s.fields.find(_.name.equalsIgnoreCase(tf.name)) match {
      case None => true
      case Some(sf) =>
        (sf.dataType, tf.dataType) match {
          case (a: StructType, b: StructType) => targetOnly(a, b)
          case _                              => false
        }
    }
  }
}
