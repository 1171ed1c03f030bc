import { EntityManager } from '@mikro-orm/postgresql';
import { invalidField } from '../../common/errors';
import { normalizePhone } from '../../common/phone';
import { User } from '../users/user.entity';
import { Driver } from './driver.entity';

/** Operators make a user a driver (registering the phone when new); idempotent. */
export async function createDriver(
  em: EntityManager,
  phone: string,
  names: { firstName?: string; lastName?: string } = {},
): Promise<Driver> {
  const phoneNumber = normalizePhone(phone);
  if (!phoneNumber) throw invalidField('phone', 'phone must be a valid phone number in international format');
  return em.transactional(async (tx) => {
    const user =
      (await tx.findOne(User, { phoneNumber })) ??
      tx.create(User, { phoneNumber, firstName: names.firstName ?? 'Driver', lastName: names.lastName ?? phoneNumber.slice(-4) });
    const driver = (await tx.findOne(Driver, { user })) ?? tx.create(Driver, { user });
    await tx.flush();
    return driver;
  });
}
