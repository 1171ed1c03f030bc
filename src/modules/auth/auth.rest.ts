/** Spec §4.1 over REST: each row is a GraphQL document; aliases give the spec's field names. */
import { RestRoute } from '../../rest/route';

const SESSION = `
  user_exists: userExists
  phone_number: phoneNumber
  access_token: accessToken
  token_type: tokenType
  expires_in: expiresIn
  user { ...RestUser }
  registration_token: registrationToken
  registration_expires_in: registrationExpiresIn`;

export const USER_FIELDS = `
  fragment RestUser on User {
    id
    phone_number: phoneNumber
    first_name: firstName
    last_name: lastName
    created_at: createdAt
  }`;

export const authRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/v1/auth/customer/send-otp',
    status: 202,
    envelope: 'message',
    document: `mutation SendOtp($phone_number: String!) {
      sendOtp(input: { phoneNumber: $phone_number }) {
        message
        data: challenge { phone_number: phoneNumber expires_in: expiresIn resend_in: resendIn }
      }
    }`,
  },
  {
    method: 'POST',
    path: '/v1/auth/customer/verify-otp',
    envelope: 'message',
    document: `mutation VerifyOtp($phone_number: String!, $verification_code: String!, $device_id: String, $push_token: String) {
      verifyOtp(input: { phoneNumber: $phone_number, verificationCode: $verification_code, deviceId: $device_id, pushToken: $push_token }) {
        message
        data: session { ${SESSION} }
      }
    } ${USER_FIELDS}`,
  },
  {
    method: 'POST',
    path: '/v1/auth/customer/complete-profile',
    status: 201,
    envelope: 'message',
    document: `mutation CompleteProfile($phone_number: String!, $first_name: String!, $last_name: String!, $registration_token: String, $device_id: String, $push_token: String) {
      completeProfile(input: { phoneNumber: $phone_number, firstName: $first_name, lastName: $last_name, registrationToken: $registration_token, deviceId: $device_id, pushToken: $push_token }) {
        message
        data: session { ${SESSION} }
      }
    } ${USER_FIELDS}`,
  },
  {
    method: 'GET',
    path: '/v1/auth/customer/me',
    document: `query Me { me { ...RestUser } } ${USER_FIELDS}`,
  },
  {
    method: 'POST',
    path: '/v1/auth/customer/logout',
    envelope: 'message',
    document: `mutation Logout { logout { message } }`,
  },
];
