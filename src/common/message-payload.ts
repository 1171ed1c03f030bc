import { Field, ObjectType } from 'type-graphql';

/** The answer of a mutation that has nothing to return but a message (logout, deletes). */
@ObjectType({ simpleResolvers: true })
export class MessagePayload {
  @Field()
  message!: string;
}
