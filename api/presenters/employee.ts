import type { Dependent, Employee } from '../../domain/entities/index.js';
import type { Gender } from '../../domain/enums.js';

/** D6: Get Employee answers the documented spellings, male without the prefix the others carry. */
const PROFILE_GENDER: Record<Gender, string> = {
  MALE: 'MALE',
  FEMALE: 'GENDER_FEMALE',
  OTHER: 'GENDER_OTHER',
};

/** Dependents are ours (no spec spelling): they answer the request spelling, so a round trip matches. */
const REQUEST_GENDER: Record<Gender, string> = {
  MALE: 'GENDER_MALE',
  FEMALE: 'GENDER_FEMALE',
  OTHER: 'GENDER_OTHER',
};

/** Spec 2.4 types every field as a string: an unset date or text is "". */
const str = (value: string | null | undefined): string => value ?? '';

/** The Employee object of spec 2.4. */
export function presentEmployee(e: Employee) {
  return {
    id: e.id,
    user_id: e.userId,
    client_id: e.clientId,
    employee_id: e.employeeCode,
    name: e.name,
    email: e.email,
    phone_number: e.phoneNumber,
    date_of_birth: str(e.dateOfBirth),
    gender: PROFILE_GENDER[e.gender],
    designation: e.designation,
    department: e.department,
    date_of_joining: str(e.dateOfJoining),
    // D6: "" while active, whatever is stored.
    date_of_leaving: e.status === 'ACTIVE' ? '' : str(e.dateOfLeaving),
    address: e.address,
    personal_email: e.personalEmail,
    personal_phone_number: e.personalPhoneNumber,
    is_admin: e.isAdmin,
    status: e.status,
    last_active_date: str(e.lastActiveDate),
  };
}

export function presentDependent(d: Dependent) {
  return {
    dependent_id: d.id,
    employee_id: d.employeeId,
    name: d.name,
    relationship: d.relationship,
    date_of_birth: str(d.dateOfBirth),
    gender: REQUEST_GENDER[d.gender],
  };
}
