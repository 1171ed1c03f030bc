/** Every entity the ORM knows, listed once (no glob discovery: same in ts and compiled js). */
import { User } from '../modules/users/user.entity';
import { UserDevice } from '../modules/users/user-device.entity';
import { OtpCode } from '../modules/auth/otp-code.entity';
import { OtpSend } from '../modules/auth/otp-send.entity';
import { PhoneVerification } from '../modules/auth/phone-verification.entity';
import { RevokedToken } from '../modules/auth/revoked-token.entity';

export const entities = [User, UserDevice, OtpCode, OtpSend, PhoneVerification, RevokedToken];
